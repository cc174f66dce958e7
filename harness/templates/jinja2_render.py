"""Reference renderer for the template differential tests: Python's jinja2 set up the way Hugging Face
transformers renders chat templates (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols,
the {% generation %} tag, tojson with ensure_ascii=False, raise_exception, strftime_now on an injected clock).
Reads lines on stdin, each a JSON list of {"template", "now", "vars"}, and answers each with a line holding a JSON
list of {"ok", "text" | "error", "class"}; a template compiled for one line serves the later ones too. The class of
an error is "unparseable" (a syntax error), "raised" (the template's own raise_exception) or "render_error" (any
other exception while rendering), the classes of toolgauge's TemplateError kinds."""
import json
import sys
from datetime import datetime, timezone

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment


class TemplateRaised(jinja2.exceptions.TemplateError):
    """What the template's raise_exception(message) raises (transformers raises TemplateError: a subclass keeps
    it apart from jinja2's own errors)."""


def error_class(exc):
    if isinstance(exc, jinja2.exceptions.TemplateSyntaxError):
        return "unparseable"
    if isinstance(exc, TemplateRaised):
        return "raised"
    return "render_error"


def failure(exc):
    message = exc.message if isinstance(exc, TemplateRaised) else str(exc)
    return {"ok": False, "error": f"{type(exc).__name__}: {exc}", "class": error_class(exc), "message": message}


class GenerationTag(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %}: renders its body (transformers marks assistant spans with it)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def render_all(req, compiled):
    """The answers to one line's list; `compiled` maps (template, now) to the compiled template or its compile error."""
    out = []
    for item in req:
        now = datetime.fromisoformat(item["now"].replace("Z", "+00:00")).astimezone(timezone.utc)
        key = (item["template"], item["now"])
        if key in compiled:
            tmpl = compiled[key]
            try:
                if isinstance(tmpl, Exception):
                    raise tmpl
                out.append({"ok": True, "text": tmpl.render(**item["vars"])})
            except Exception as exc:
                out.append(failure(exc))
            continue

        def raise_exception(message):
            raise TemplateRaised(message)

        def strftime_now(fmt):
            return now.strftime(fmt)

        def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
            return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, jinja2.ext.loopcontrols]
        )
        env.filters["tojson"] = tojson
        env.globals["raise_exception"] = raise_exception
        env.globals["strftime_now"] = strftime_now
        try:
            tmpl = env.from_string(item["template"])
            compiled[key] = tmpl
            text = tmpl.render(**item["vars"])
            out.append({"ok": True, "text": text})
        except Exception as exc:
            compiled.setdefault(key, exc)
            out.append(failure(exc))
    return out


def main():
    compiled = {}
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(render_all(json.loads(line), compiled)) + "\n")
            sys.stdout.flush()


main()
