"""BFCL's own evaluator (eval_checker/eval_runner.py: runner -> evaluate_task -> the file runners) over a result folder.

Usage: python3 bfcl_evaluate.py REF RESULT_DIR SCORE_DIR CATEGORY...
  REF: BFCL's berkeley-function-call-leaderboard folder (holding bfcl_eval/).
  RESULT_DIR: result/<model>/<group>/BFCL_v4_<category>_result.json, as BFCL's generation step writes them.
  SCORE_DIR: where BFCL writes its score files (one per category: a header line, then one line per invalid case).

BFCL's code runs unchanged, imported from REF. What this file adds, and only because Debian's python3 lacks the
packages BFCL's pyproject installs: stand-ins for the third-party modules the evaluation path imports but does not
use to decide a verdict (tqdm, dotenv, filelock, overrides, tenacity, pandas, openai, tree_sitter), and a model
registry of two models in place of BFCL's (whose import pulls every vendor SDK): `tg-fc` (OpenAI-style FC handler,
underscore_to_dot) and `tg-prompt` (the same handler in prompt mode). The leaderboard CSV step (pandas) is skipped;
the score files, which carry every verdict, are written by BFCL's own save_eval_results.
"""
import contextlib
import sys
import types
from pathlib import Path

REF, RESULT_DIR, SCORE_DIR, CATEGORIES = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, REF)


def _stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


def _identity(x=None, *_a, **_k):
    return x


class _Anything:
    """Accepts any construction; an unused client (the OpenAI SDK's) or error type."""

    def __init__(self, *_a, **_k):
        pass


def _no_parser(*_a, **_k):
    raise NotImplementedError('tree-sitter is not installed: prompt-mode Java/JavaScript decoding is not available')


_stub('tqdm', tqdm=_identity)
_stub('dotenv', load_dotenv=lambda *a, **k: None)
_stub('filelock', FileLock=lambda *a, **k: contextlib.nullcontext())
_stub('overrides', final=_identity, override=_identity)
_stub('tenacity', retry=lambda **k: (lambda f: f), retry_if_exception_message=lambda **k: None,
      retry_if_exception_type=lambda *a: None, wait_random_exponential=lambda **k: None,
      stop_after_attempt=lambda *a: None)
_stub('pandas')
_stub('openai', OpenAI=_Anything, RateLimitError=type('RateLimitError', (Exception,), {}))
_stub('bfcl_eval.model_handler.parser.java_parser', parse_java_function_call=_no_parser)
_stub('bfcl_eval.model_handler.parser.js_parser', parse_javascript_function_call=_no_parser)


class _Config:
    def __init__(self, name, is_fc):
        self.model_name = name
        self.display_name = name
        self.is_fc_model = is_fc
        self.underscore_to_dot = is_fc
        self.input_price = None
        self.output_price = None
        self.model_handler = None  # set below, once BFCL's handler can be imported


MODELS = {'tg-fc': _Config('tg-fc', True), 'tg-prompt': _Config('tg-prompt', False)}
_stub('bfcl_eval.constants.model_config', MODEL_CONFIG_MAPPING=MODELS)

from bfcl_eval.model_handler.api_inference.openai_completion import OpenAICompletionsHandler  # noqa: E402

for config in MODELS.values():
    config.model_handler = OpenAICompletionsHandler

from bfcl_eval.eval_checker import eval_runner  # noqa: E402

# The CSV leaderboard needs pandas and reads every score file: not part of any verdict.
eval_runner.update_leaderboard_table_with_local_score_file = lambda *a, **k: None
eval_runner.generate_leaderboard_csv = lambda *a, **k: None

eval_runner.runner(None, CATEGORIES, Path(RESULT_DIR).resolve(), Path(SCORE_DIR).resolve(), allow_missing=True)
