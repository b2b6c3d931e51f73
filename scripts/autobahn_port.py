#!/usr/bin/env python3
"""Ports Autobahn|Testsuite's fuzzingclient (Python 2 code) to Python 3, for scripts/autobahn.

    autobahn_port.py SITE_PACKAGES OUT_DIR

Copies `autobahntestsuite` and `autobahn` from SITE_PACKAGES (a virtualenv that installed the
pins of scripts/autobahn-requirements.txt) into OUT_DIR, runs lib2to3 over the test suite, then
makes the edits below, each of which must match exactly as many times as it says (a pin that
moved makes the port fail loudly rather than run something else). OUT_DIR is written whole or
not at all: the copy is made beside it and renamed into place at the end.

What the edits keep: Python 2's meaning. The suite's plain strings were bytes there, so here a
payload stays a str whose code points are its bytes (a "latin-1 view"; `chr(i)` and `'\\xfe'`
mean what they meant) and is turned into bytes where it leaves for autobahn, with
`.encode('latin-1')`. A literal written with non-ASCII characters in a UTF-8 source file (case
6.2.x) was its UTF-8 bytes, so it is rewritten as the latin-1 view of those bytes. Received
payloads are bytes; the comparison of received and expected events sees both as bytes.
"""
import ast
import io
import logging
import os
import re
import shutil
import sys
import tokenize
import warnings

# The helpers the ported code imports as `autobahntestsuite._py2`.
PY2_HELPERS = '''\
"""Python 2 meanings for the Python 3 port of Autobahn|Testsuite (written by scripts/autobahn_port.py)."""
import binascii as _binascii


def b(data):
    """Bytes of a Python 2 byte string: a str is its latin-1 view, bytes stay."""
    if isinstance(data, str):
        return data.encode("latin-1")
    return data


def b2a_hex(data):
    """binascii.b2a_hex as Python 2 had it: takes a byte string, gives a str."""
    return _binascii.b2a_hex(b(data)).decode("ascii")


def text(data):
    """A byte string shown as text (HTTP dumps, close reasons): UTF-8, invalid octets replaced."""
    if isinstance(data, (bytes, bytearray)):
        return bytes(data).decode("utf-8", "replace")
    return data


def described(s):
    """A description built from byte strings: its UTF-8 text where it is the latin-1 view of UTF-8."""
    if isinstance(s, str):
        try:
            return s.encode("latin-1").decode("utf-8")
        except UnicodeError:
            return s
    return text(s)


def json_default(o):
    """json.dumps(default=...): Python 2's json took byte strings as UTF-8."""
    if isinstance(o, (bytes, bytearray)):
        return text(o)
    raise TypeError("%r is not JSON serializable" % (o,))


def strict(o):
    """A value for comparing events as Python 2's pickle.dumps did: types count, and a
    payload compares by its bytes whether it is a str (latin-1 view) or bytes."""
    if isinstance(o, (str, bytes, bytearray)):
        return ("bytes", b(o) if isinstance(o, str) else bytes(o))
    if isinstance(o, (list, tuple)):
        return (type(o).__name__, tuple(strict(x) for x in o))
    if isinstance(o, dict):
        return ("dict", tuple(sorted((repr(k), strict(v)) for k, v in o.items())))
    return (type(o).__name__, o)
'''

# Methods of the fuzzing protocol whose payload argument the cases give as a Python 2 byte
# string (a str here): they are turned into bytes before autobahn sees them.
SEND_WRAPPERS = '''

   ## Python 3 port: the cases' payloads are Python 2 byte strings (str here); autobahn wants bytes.
   def sendFrame(self, opcode, payload=b'', *args, **kwargs):
      return super(FuzzingProtocol, self).sendFrame(opcode, _py2.b(payload), *args, **kwargs)

   def sendMessage(self, payload, *args, **kwargs):
      return super(FuzzingProtocol, self).sendMessage(_py2.b(payload), *args, **kwargs)

   def sendMessageFrame(self, payload, *args, **kwargs):
      return super(FuzzingProtocol, self).sendMessageFrame(_py2.b(payload), *args, **kwargs)

   def sendMessageFrameData(self, payload, *args, **kwargs):
      return super(FuzzingProtocol, self).sendMessageFrameData(_py2.b(payload), *args, **kwargs)

   def sendPing(self, payload=None):
      return super(FuzzingProtocol, self).sendPing(_py2.b(payload))

   def sendPong(self, payload=None):
      return super(FuzzingProtocol, self).sendPong(_py2.b(payload))

   def sendCloseFrame(self, code=None, reasonUtf8=None, isReply=False):
      return super(FuzzingProtocol, self).sendCloseFrame(code, _py2.b(reasonUtf8), isReply)

   def connectionMade(self):
'''

# (file under OUT_DIR, old text, new text, how many times old must occur). Applied after 2to3.
EDITS = [
    # autobahn 0.10.9's repeated payload (payload_len, used by cases 7.1.6 and 9.x): integer division.
    ("autobahn/websocket/protocol.py",
     "range(payload_len / len(payload))", "range(payload_len // len(payload))", 1),

    # --- fuzzing.py: the fuzzing client and its reports ---
    # No pyOpenSSL here: twisted.internet.ssl fails to import without it, and ws:// needs none.
    ("autobahntestsuite/fuzzing.py",
     "import os, json, binascii, time, textwrap, pkg_resources\n",
     "import os, json, time, textwrap, pkg_resources\n"
     "from . import _py2\n"
     "from . import _py2 as binascii  # b2a_hex as in Python 2: byte string in, str out\n", 1),
    ("autobahntestsuite/fuzzing.py",
     "from twisted.internet import reactor, ssl\n",
     "from twisted.internet import reactor\n"
     "try:\n"
     "   from twisted.internet import ssl\n"
     "except ImportError:  # no pyOpenSSL: ws:// only\n"
     "   ssl = None\n", 1),
    ("autobahntestsuite/fuzzing.py",
     "         hostname = server.get(\"hostname\")\n         if hostname:",
     "         hostname = server.get(\"hostname\")\n"
     "         if ssl is None:\n"
     "            self.contextFactory = None\n"
     "         elif hostname:", 1),
    # asciiLogData: a byte string plus " ..." then decoded, as in Python 2.
    ("autobahntestsuite/fuzzing.py",
     "def asciiLogData(data, maxlen = 64, replace = False):\n   ellipses = \" ...\"\n",
     "def asciiLogData(data, maxlen = 64, replace = False):\n   data = _py2.b(data)\n   ellipses = b\" ...\"\n", 1),
    # The received frame's payload is a list of bytes chunks.
    ("autobahntestsuite/fuzzing.py", "p = ''.join(payload)", "p = b''.join(payload)", 1),
    # The payload-taking send methods take Python 2 byte strings (see SEND_WRAPPERS).
    ("autobahntestsuite/fuzzing.py",
     "   MAX_WIRE_LOG_DATA = 256\n\n   def connectionMade(self):\n",
     "   MAX_WIRE_LOG_DATA = 256\n" + SEND_WRAPPERS, 1),
    # The case record: descriptions as text, HTTP dumps and close reasons as text, not b'...'.
    ("autobahntestsuite/fuzzing.py",
     '"description": self.Case.DESCRIPTION,', '"description": _py2.described(self.Case.DESCRIPTION),', 1),
    ("autobahntestsuite/fuzzing.py",
     '"expectation": self.Case.EXPECTATION,', '"expectation": _py2.described(self.Case.EXPECTATION),', 1),
    ("autobahntestsuite/fuzzing.py",
     '"localCloseReason": self.localCloseReason,', '"localCloseReason": _py2.text(self.localCloseReason),', 1),
    ("autobahntestsuite/fuzzing.py",
     '"remoteCloseReason": self.remoteCloseReason,', '"remoteCloseReason": _py2.text(self.remoteCloseReason),', 1),
    ("autobahntestsuite/fuzzing.py",
     "self.http_request_data if hasattr", "_py2.text(self.http_request_data) if hasattr", 1),
    ("autobahntestsuite/fuzzing.py",
     "self.http_response_data if hasattr", "_py2.text(self.http_response_data) if hasattr", 1),
    # Reports: text files in UTF-8 (Python 2 wrote the UTF-8 bytes it had).
    ("autobahntestsuite/fuzzing.py",
     "open(os.path.join(outdir, report_filename), 'w')",
     "open(os.path.join(outdir, report_filename), 'w', encoding='utf-8')", 4),
    ("autobahntestsuite/fuzzing.py",
     "% (c[0], case[c[0]], c[1])).encode(\"utf-8\"))", "% (c[0], case[c[0]], c[1])))", 1),
    ("autobahntestsuite/fuzzing.py", "ll.encode('utf8')", "ll", 1),
    ("autobahntestsuite/fuzzing.py",
     "% CCase.DESCRIPTION)", "% _py2.described(CCase.DESCRIPTION))", 1),
    ("autobahntestsuite/fuzzing.py",
     "% CCase.EXPECTATION)", "% _py2.described(CCase.EXPECTATION))", 1),
    # json of a case record may still hold bytes (e.g. a close reason a case set itself).
    ("autobahntestsuite/fuzzing.py",
     "f.write(json.dumps(case, sort_keys = True, indent = 3, separators = (',', ': ')))",
     "f.write(json.dumps(case, sort_keys = True, indent = 3, separators = (',', ': '), default = _py2.json_default))", 1),
    ("autobahntestsuite/fuzzing.py",
     "f.write(json.dumps(res, sort_keys = True, indent = 3, separators = (',', ': ')))",
     "f.write(json.dumps(res, sort_keys = True, indent = 3, separators = (',', ': '), default = _py2.json_default))", 1),

    # report.py: jinja2 only serves HtmlReportGenerator, which the fuzzing client does not use (its
    # reports are written by fuzzing.py, without templates; the sdist ships no templates/ either).
    ("autobahntestsuite/report.py",
     "import jinja2\n",
     "try:\n   import jinja2\nexcept ImportError:  # not installed: only HtmlReportGenerator needs it\n   jinja2 = None\n", 1),

    # serializer.py (mode "serializer", WAMP): autobahn's test module needs unittest2, not installed.
    ("autobahntestsuite/serializer.py",
     "from autobahn.wamp.test.test_serializer import generate_test_messages\n",
     "try:\n   from autobahn.wamp.test.test_serializer import generate_test_messages\n"
     "except ImportError:  # unittest2 is not installed: mode serializer is unavailable\n"
     "   generate_test_messages = None\n", 1),

    # --- case.py: received events (bytes) against expected ones (byte strings as str) ---
    ("autobahntestsuite/case/case.py",
     "      return pickle.dumps(obj1) == pickle.dumps(obj2)\n",
     "      return _py2.strict(obj1) == _py2.strict(obj2)\n", 1),
    ("autobahntestsuite/case/case.py",
     "import pickle\n", "import pickle\nfrom .. import _py2\n", 1),

    # --- cases ---
    # Python 2 integer division: 65536 / 1300 frames is 50.
    ("autobahntestsuite/case/case10_1_1.py",
     "len(self.payload) / self.p.autoFragmentSize", "len(self.payload) // self.p.autoFragmentSize", 1),
    # The UTF-8 validator (wsaccel) takes bytes.
    ("autobahntestsuite/case/case6_x_x.py",
     "res = v.validate(vss[:i])", "res = v.validate(vss[:i].encode('latin-1'))", 1),
    # zope.interface's class advice `implements` does not exist on Python 3 (case 9.9.1, not in the
    # run list, but its module is imported).
    ("autobahntestsuite/case/case9_9_1.py",
     "from zope.interface import implements\n", "from zope.interface import implementer\n", 1),
    ("autobahntestsuite/case/case9_9_1.py",
     "class FrameProducer:\n\n   implements(interfaces.IPushProducer)\n",
     "@implementer(interfaces.IPushProducer)\nclass FrameProducer:\n", 1),
]

# Cases whose binascii.b2a_hex takes a Python 2 byte string (a str here) and gives a str.
B2A_HEX_FILES = ["case6_2_1", "case6_2_2", "case6_2_3", "case6_2_4", "case6_3_1", "case6_3_2",
                 "case6_4_1", "case6_4_2", "case6_4_3", "case6_4_4", "case6_x_x", "case7_5_1"]


def edit(root, path, old, new, count):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    found = text.count(old)
    if found != count:
        sys.exit(f"autobahn_port: {path}: expected {count} occurrence(s) of {old!r}, found {found}")
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new))


def latin1_view_literal(token_text):
    """A plain string literal with non-ASCII characters, as the str of its UTF-8 bytes, escaped."""
    if re.match(r"[A-Za-z]", token_text):
        sys.exit(f"autobahn_port: unexpected prefixed non-ASCII literal {token_text!r}")
    raw = ast.literal_eval(token_text).encode("utf-8").decode("latin-1")
    body = "".join(c if 0x20 <= ord(c) < 0x7F and c not in "\\'\"" else "\\x%02x" % ord(c) for c in raw)
    return "'" + body + "'"


def rewrite_non_ascii_literals(path):
    """Python 2 read `"Hello-µ"` in a UTF-8 file as those UTF-8 bytes: make it their latin-1 view.
    Returns how many literals were rewritten."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    replacements = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and any(ord(c) > 0x7F for c in tok.string):
            start = offsets[tok.start[0] - 1] + tok.start[1]
            end = offsets[tok.end[0] - 1] + tok.end[1]
            replacements.append((start, end, latin1_view_literal(tok.string)))
    for start, end, new in reversed(replacements):
        source = source[:start] + new + source[end:]
    if replacements:
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
    return len(replacements)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    site, out = sys.argv[1], os.path.abspath(sys.argv[2])
    work = out + ".tmp"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("autobahntestsuite", "autobahn"):
        shutil.copytree(os.path.join(site, package), os.path.join(work, package), ignore=ignore)

    # lib2to3 (in the standard library up to Python 3.12) over the test suite.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from lib2to3.main import main as lib2to3_main
    logging.basicConfig(level=logging.WARNING)  # lib2to3 then leaves out its per-file lines
    status = lib2to3_main("lib2to3.fixes", ["--write", "--nobackups", "--no-diffs",
                                             os.path.join(work, "autobahntestsuite")])
    if status:
        sys.exit(f"autobahn_port: lib2to3 failed ({status})")

    with open(os.path.join(work, "autobahntestsuite", "_py2.py"), "w", encoding="utf-8") as f:
        f.write(PY2_HELPERS)

    for path, old, new, count in EDITS:
        edit(work, path, old, new, count)

    case_dir = os.path.join(work, "autobahntestsuite", "case")
    # On Python 2, Case was a classic class, so type(name, (object, Case), ...) had an order;
    # on Python 3 that base order has none: the generated cases (6.x, 7.7, 7.9, 9.7/9.8, 12, 13).
    generated = 0
    for name in sorted(os.listdir(case_dir)):
        if name.endswith(".py"):
            full = os.path.join(case_dir, name)
            with open(full, encoding="utf-8") as f:
                text = f.read()
            if "(object, Case, )" in text:
                generated += text.count("(object, Case, )")
                with open(full, "w", encoding="utf-8") as f:
                    f.write(text.replace("(object, Case, )", "(Case, )"))
    if generated != 6:
        sys.exit(f"autobahn_port: expected 6 type(..., (object, Case, ), ...), found {generated}")

    for name in B2A_HEX_FILES:
        edit(work, f"autobahntestsuite/case/{name}.py", "import binascii\n",
             "from .. import _py2 as binascii  # b2a_hex as in Python 2\n", 2 if name == "case6_x_x" else 1)

    rewritten = sum(rewrite_non_ascii_literals(os.path.join(case_dir, name))
                    for name in sorted(os.listdir(case_dir)) if name.endswith(".py"))
    if rewritten != 5:  # 6.2.1, 6.2.2 (two), 6.2.3, and one in a self-test of case6_x_x
        sys.exit(f"autobahn_port: expected 5 non-ASCII literals in the cases, found {rewritten}")

    shutil.rmtree(out, ignore_errors=True)
    os.rename(work, out)


if __name__ == "__main__":
    main()
