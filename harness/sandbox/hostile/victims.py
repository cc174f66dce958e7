# Ordinary rows run after a hostile one: each uses something the hostile rows poison.
def v_json(x):
    import json
    return json.loads(json.dumps({"x": x, "list": [1, 2.5, None], "text": "é"}))


def v_datetime():
    return [
        datetime(2020, 2, 29, 12, 30).isoformat(),
        (date(2021, 1, 1) + timedelta(days=40)).isoformat(),
        datetime.strptime("2020-03-04", "%Y-%m-%d").strftime("%d/%m/%Y"),
        str(date(2020, 1, 31) + relativedelta(months=1)),
    ]


def v_re():
    return [re.sub(r"(\d+)", r"<\1>", "a1b22"), re.findall(r"\w+", "hello big world"), bool(re.match("^a.c$", "abc"))]


def v_math():
    import statistics

    return [math.sqrt(16), math.floor(2.7), round(math.pi, 5), statistics.mean([1, 2, 3, 4])]


def v_zones():
    paris = pytz.timezone("Europe/Paris").localize(datetime(2020, 7, 1, 12)).isoformat()
    tokyo = pytz.timezone("Asia/Tokyo").localize(datetime(2021, 1, 1, 9)).isoformat()
    return [paris, tokyo, format_date(date(2020, 1, 2), locale="de")]


def v_decimal_calendar():
    import calendar
    import decimal

    return [str(decimal.Decimal(1) / decimal.Decimal(8)), list(calendar.monthrange(2024, 2)), calendar.month_name[3],
            calendar.Calendar().getfirstweekday()]


def v_builtins():
    return [len("abcd"), sorted([3, 1, 2]), str(1.5), int("42"), format(1234.5, ","), "-".join(["a", "b"])]


def v_parser():
    from dateutil import parser

    return parser.parse("2020-03-04 05:06").isoformat()
