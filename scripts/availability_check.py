#!/usr/bin/env python3
"""Apple availability checker for a Swift package, run on Linux.

Swift on Linux ignores `@available(macOS 15, ...)`: code that uses a declaration newer than the
package's deployment targets builds and passes there, and fails only on Apple ("'X' is only
available in macOS 15 or newer"). This script finds such uses without a Mac.

What it does:

* Reads the deployment targets from Package.swift's `platforms:` (`.macOS(.v13)`, `.iOS("16.4")`,
  `.macOS(.v10_15)`). A platform not listed gets SwiftPM 6's oldest supported version (SwiftPM's
  Sources/PackageModel/Platform.swift: macOS 10.13, iOS 12, tvOS 12, watchOS 4, visionOS 1), and a
  listed version older than that is raised to it, as SwiftPM does. A platform where the sources stop
  the build (`#if os(watchOS)` `#error(...)` `#endif`, as MockNetwork's core does) is not checked.
* Reads every `.swift` file under Sources/ (more with --include DIR, e.g. Tests; fewer only with an
  explicit --exclude PATH), with comments and string literals removed: multi-line and raw strings
  too, while the code in their interpolations is kept and checked.
* Collects the declarations newer than the targets: those of the sources marked `@available(<os>
  <version>, ...)`, directly or through an enclosing type or extension; and those of the toolchain's
  own modules, whose Linux interfaces carry Apple availability (Swift, _Concurrency,
  _StringProcessing, Synchronization, and any other module with an interface that the sources
  import, such as Testing): `Mutex`, `Atomic`, `TaskExecutor`, `ExecutorJob`,
  `withTaskExecutorPreference`, `Task(executorPreference:)`, `withDiscardingTaskGroup`,
  `InlineArray`, `Array.span`, ... A declaration's `@available` version is what counts, with or
  without `@backDeployed` (`withDiscardingTaskGroup` is back-deployed, and still needs macOS 14;
  `AsyncStream.makeStream` is back-deployed to macOS 10.15, so it is fine). `visionOS` availability
  not written is inferred from `iOS` (iOS 17 is visionOS 1, iOS 18 visionOS 2), as Swift does.
* Reports each use of one outside a context at least as new: an enclosing declaration marked
  `@available` with a version at least the one needed, an `if #available(...)` branch, the code
  after a `guard #available(...) else { ... }` in the same block, the `else` of an
  `if #unavailable(...)`. Code that Apple platforms do not compile (`#if os(Linux)`,
  `#if canImport(FoundationNetworking)`, `canImport(Glibc)`) is not checked; other conditions
  (traits, DEBUG, compiler(...)) count as compiled.
* Reports an `if #available` / `guard #available` (or `#unavailable`) whose answer is already known
  where it stands, on a platform it names: an enclosing `@available`, or the deployment target,
  implies it. Apple's compiler warns "unnecessary check for 'macOS'; enclosing scope (minimum
  deployment target) ensures guard will always be true", an error under -warnings-as-errors.

How a use is matched to a declaration, with no type checker: a type, a free function or a global
by its name (a type of the sources hides the toolchain's of that name); a member or initializer
qualified by its type (`Task(executorPreference:`, `Task.detached(executorPreference:`,
`SocketExecutor.run(`) by that type's declarations of that name that accept that first argument
label; a member by `.name` alone only when every declaration of that name in the sources and the
toolchain's interfaces is newer than the targets, so common names (`.run`, `.get`, `.init`) never
match on their own, and a one-word member of the toolchain's (`.second`, `.immediate`) counts only
qualified, as Foundation, which this cannot see, may have a member of that name.

Not checked (this is not a compiler):

* Foundation, Dispatch and XCTest: on Linux they are the swift-corelibs builds, with no Apple
  availability and no interfaces, so Foundation API newer than the targets (`URL(string:
  encodingInvalidCharacters:)` before macOS 14, `Date.now` before macOS 12, ...) is NOT checked.
* A member reached through a value when its name is shared with an older declaration (`x.run()`
  where some `run` is old enough), a member used without `self.` inside its own type, the type of
  an expression that names no type (`let x = f(); x.newerMember`), overloads told apart by argument
  types rather than labels, and protocol conformances a type gets without naming the protocol.
* Swift concurrency itself (`async`, actors) below macOS 10.15 / iOS 13 / watchOS 6.
* `#if` branches whose braces do not balance on their own (the script warns about such a file),
  and bare `/regex/` literals (`#/regex/#` is understood).

Usage: availability_check.py [--root DIR] [--list] [--include DIR] [--exclude PATH]
                             [--toolchain-dir DIR | --no-toolchain]
Exit status: 0 when nothing is found, 1 when something is, 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

PLATFORMS = ("macOS", "iOS", "tvOS", "watchOS", "visionOS")
PLATFORM_ALIASES = {"macOS": "macOS", "OSX": "macOS", "iOS": "iOS", "tvOS": "tvOS",
                    "watchOS": "watchOS", "visionOS": "visionOS", "xrOS": "visionOS"}
# SwiftPM 6.x, Sources/PackageModel/Platform.swift: `oldestSupportedVersion` of each platform, the
# deployment target of a platform the manifest does not list (and the floor of one it does).
SWIFTPM_OLDEST = {"macOS": (10, 13), "iOS": (12, 0), "tvOS": (12, 0), "watchOS": (4, 0), "visionOS": (1, 0)}
ZERO = (0,)

# The toolchain modules read whether or not Sources imports them (the first three are implicit).
DEFAULT_MODULES = ("Swift", "_Concurrency", "_StringProcessing", "Synchronization")
# Modules with an interface that say nothing about Apple platforms.
IGNORED_MODULES = {"Glibc", "Musl", "SwiftOnoneSupport", "Cxx", "CxxStdlib", "_Builtin_float"}

TYPE_KEYWORDS = {"class", "struct", "enum", "actor", "protocol", "extension"}
DECL_KEYWORDS = TYPE_KEYWORDS | {"typealias", "associatedtype", "func", "init", "deinit", "var",
                                 "let", "subscript", "case", "macro"}
CALLABLE_KINDS = {"func", "init", "subscript", "macro"}
NAMED_TYPE_KINDS = {"class", "struct", "enum", "actor", "protocol", "typealias", "associatedtype"}
MODIFIERS = {"public", "private", "fileprivate", "internal", "package", "open", "final", "static",
             "class", "override", "required", "convenience", "mutating", "nonmutating", "nonisolated",
             "lazy", "weak", "unowned", "dynamic", "optional", "indirect", "prefix", "postfix",
             "infix", "consuming", "borrowing", "distributed", "__consuming", "isolated"}
MODULE_PREFIXES = {"Swift", "_Concurrency", "Synchronization", "_StringProcessing", "Distributed",
                   "Observation", "RegexBuilder", "Testing", "Foundation"}
MODIFIERS_WITH_ARGUMENT = {"private", "fileprivate", "internal", "public", "package", "nonisolated", "unowned"}
# A line that starts with one of these goes on with the statement before it.
CONTINUES_AT_START = {".", "->", "where", "throws", "rethrows", "async", "=", ":", ",", "&", "&&",
                      "||", "??", "?", "+", "*", "/", "%", "|", "==", "!=", "...", "..<", "else"}
# So does the next line when a line ends with one of these.
CONTINUES_AT_END = {",", ":", "->", ".", "=", "&&", "||", "??", "&", "+", "-", "*", "/", "%", "|",
                    "==", "!=", "<=", ">=", "...", "..<", "(", "["}

# Words that are never a use of a declaration.
KEYWORDS = {
    "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
    "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
    "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
    "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
    "throw", "switch", "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self",
    "super", "throws", "true", "try", "async", "some", "any", "each", "consume", "copy", "borrowing",
    "consuming", "sending", "isolated", "nonisolated", "get", "set", "willSet", "didSet", "lazy",
    "mutating", "nonmutating", "weak", "unowned", "package", "final", "override", "required",
    "convenience", "dynamic", "optional", "indirect", "actor", "macro", "repeat", "Type", "Protocol",
}

Version = tuple
DISTINCTIVE = re.compile(r"^[A-Z]|.[A-Z]")  # a type's name, or a camel-case name of two words or more


def parse_version(text: str) -> Version:
    parts = [int(p) for p in re.findall(r"\d+", text)]
    return tuple(parts) if parts else ZERO


def vkey(v: Version) -> Version:
    """A version padded for comparison: (15,) == (15, 0, 0)."""
    v = tuple(v)
    while len(v) > 1 and v[-1] == 0:
        v = v[:-1]
    return v


def vmax(a: Version, b: Version) -> Version:
    return a if vkey(a) >= vkey(b) else b


def vge(a: Version, b: Version) -> bool:
    return vkey(a) >= vkey(b)


def vtext(v: Version) -> str:
    v = list(v) + [0]
    while len(v) > 1 and v[-1] == 0:
        v.pop()
    return ".".join(str(p) for p in v)


def visionos_from_ios(v: Version) -> Version:
    """visionOS inherits iOS availability that does not name visionOS (iOS 17 is visionOS 1)."""
    major = v[0]
    if major <= 17:
        return (1, 0)
    if major == 18:
        return (2, 0)
    return tuple(v)


def with_inferred_visionos(versions: dict) -> dict:
    if "iOS" in versions and "visionOS" not in versions:
        versions = dict(versions)
        versions["visionOS"] = visionos_from_ios(versions["iOS"])
    return versions


def spec_text(versions: dict) -> str:
    return ", ".join(f"{p} {vtext(versions[p])}" for p in PLATFORMS if p in versions)


# --------------------------------------------------------------------------------------------
# Lexing: tokens of code only (comments and string contents dropped, interpolations kept), each
# with the set of Apple platforms that compile it (from #if / #elseif / #else).

TOKEN_RE = re.compile(r"""
  (?P<nl>\n)
 |(?P<ws>[ \t\r\f\v]+)
 |(?P<lc>//[^\n]*)
 |(?P<bc>/\*)
 |(?P<str>\#*"(?:"")?)
 |(?P<rx>\#+/)
 |(?P<id>[^\W\d]\w*)
 |(?P<bid>`[^`\n]+`)
 |(?P<dollar>\$\w*)
 |(?P<attr>@[^\W\d]\w*)
 |(?P<pound>\#[^\W\d]\w*)
 |(?P<num>0[xob][0-9a-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)*(?:[eE][+-]?\d+)?)
 |(?P<dots>->|\.\.\.|\.\.<)
 |(?P<op>[=\-+!*%<>&|^~?/]+)
 |(?P<p>.)
""", re.X | re.S)

ALL_MASK = (1 << len(PLATFORMS)) - 1


class Tokens:
    """Parallel lists: kind ('I' identifier, 'A' attribute, 'P' #word, 'N' number, 'S' string,
    'O' operator, or the punctuation itself), text, start offset, newline before, platform mask."""

    def __init__(self, text: str):
        self.text = text
        self.kind: list[str] = []
        self.val: list[str] = []
        self.start: list[int] = []
        self.nl: list[bool] = []
        self.mask: list[int] = []
        self.sure: list[int] = []
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def line_col(self, i: int) -> tuple[int, int]:
        pos = self.start[i]
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def __len__(self):
        return len(self.kind)


_string_end_cache: dict = {}


def _string_scanner(hashes: int, triple: bool):
    key = (hashes, triple)
    if key not in _string_end_cache:
        close = ('"""' if triple else '"') + "#" * hashes
        _string_end_cache[key] = re.compile(r"(\\" + "#" * hashes + r")|(" + re.escape(close) + r")")
    return _string_end_cache[key]


class Lexer:
    def __init__(self, text: str):
        self.t = Tokens(text)
        self.text = text
        self.newline = True
        self.mask = ALL_MASK   # platforms that may compile the code here
        self.sure = ALL_MASK   # platforms that surely do
        # Per #if: [parent's mask, parent's sure mask, platforms where an earlier branch surely
        # was compiled, platforms where one may have been]
        self.if_stack: list[list] = []

    def emit(self, kind: str, val: str, start: int):
        self.t.kind.append(kind)
        self.t.val.append(val)
        self.t.start.append(start)
        self.t.nl.append(self.newline)
        self.t.mask.append(self.mask)
        self.t.sure.append(self.sure)
        self.newline = False

    def run(self) -> Tokens:
        self.lex(0, in_interpolation=False)
        return self.t

    def lex(self, pos: int, in_interpolation: bool) -> int:
        text = self.text
        n = len(text)
        depth = 0
        match = TOKEN_RE.match
        while pos < n:
            m = match(text, pos)
            group = m.lastgroup
            start = pos
            pos = m.end()
            if group == "ws":
                continue
            if group == "nl":
                self.newline = True
                continue
            if group == "lc":
                continue
            if group == "bc":
                pos = self.skip_block_comment(pos)
                continue
            if group == "str":
                token = m.group()
                hashes = token.count("#")
                triple = token.endswith('"""')
                self.emit("S", '"', start)
                pos = self.skip_string(pos, hashes, triple)
                continue
            if group == "rx":
                hashes = len(m.group()) - 1
                close = "/" + "#" * hashes
                end = text.find(close, pos)
                self.emit("S", "/", start)
                pos = n if end < 0 else end + len(close)
                continue
            if group == "id":
                self.emit("I", m.group(), start)
                continue
            if group == "bid":
                self.emit("I", m.group()[1:-1], start)
                continue
            if group == "dollar":
                self.emit("I", m.group(), start)
                continue
            if group == "attr":
                self.emit("A", m.group(), start)
                continue
            if group == "pound":
                word = m.group()
                if word in ("#if", "#elseif", "#else", "#endif") and self.newline and not in_interpolation:
                    end = text.find("\n", pos)
                    end = n if end < 0 else end
                    self.directive(word, text[pos:end])
                    pos = end
                    continue
                self.emit("P", word, start)
                continue
            if group == "num":
                self.emit("N", m.group(), start)
                continue
            if group == "dots":
                self.emit(m.group(), m.group(), start)
                continue
            if group == "op":
                self.emit("O", m.group(), start)
                continue
            ch = m.group()
            if in_interpolation:
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    if depth == 0:
                        self.emit(")", ")", start)
                        return pos
                    depth -= 1
            self.emit(ch, ch, start)
        return pos

    def skip_block_comment(self, pos: int) -> int:
        """Skips a /* */ comment (they nest) whose "/*" ends at pos."""
        text = self.text
        start = pos
        depth = 1
        while depth and pos < len(text):
            a = text.find("/*", pos)
            b = text.find("*/", pos)
            if b < 0:
                pos = len(text)
                break
            if 0 <= a < b:
                depth += 1
                pos = a + 2
            else:
                depth -= 1
                pos = b + 2
        if "\n" in text[start:pos]:
            self.newline = True
        return pos

    def skip_string(self, pos: int, hashes: int, triple: bool) -> int:
        text = self.text
        scanner = _string_scanner(hashes, triple)
        while True:
            m = scanner.search(text, pos)
            if not m:
                return len(text)
            if m.group(2):
                return m.end()
            pos = m.end()  # after the backslash (and its hashes)
            if pos < len(text) and text[pos] == "(":
                self.emit("(", "(", pos)
                pos = self.lex(pos + 1, in_interpolation=True)
            else:
                pos += 1

    def directive(self, word: str, condition: str):
        condition = condition.split("//", 1)[0]
        if word == "#if":
            self.if_stack.append([self.mask, self.sure, 0, 0])
        elif not self.if_stack:
            return
        if word == "#endif":
            self.mask, self.sure = self.if_stack.pop()[:2]
            return
        frame = self.if_stack[-1]
        parent, parent_sure, taken_sure, taken_maybe = frame
        surely_true, surely_false = condition_mask(condition) if word != "#else" else (ALL_MASK, 0)
        # A branch may be compiled on a platform unless an earlier branch surely is or its own
        # condition is surely false there; it surely is when its condition surely holds and no
        # earlier branch may be.
        self.mask = parent & ~taken_sure & ~surely_false
        self.sure = parent_sure & ~taken_maybe & surely_true
        frame[2] = taken_sure | surely_true
        frame[3] = taken_maybe | (ALL_MASK & ~surely_false)


# #if conditions, per Apple platform: True, False or None (unknown: a trait, DEBUG, compiler(...)).
APPLE_ONLY_MODULES = {"Darwin", "ObjectiveC", "CoreFoundation_Darwin", "os", "Network", "Security",
                      "CoreServices", "SwiftUI", "Combine", "CryptoKit", "OSLog"}
NON_APPLE_MODULES = {"Glibc", "Musl", "WinSDK", "Android", "Bionic", "WASILibc", "FoundationNetworking",
                     "FoundationXML", "FoundationEssentials_Linux", "ucrt", "CRT"}
UIKIT_PLATFORMS = {"iOS", "tvOS", "visionOS"}


def condition_mask(condition: str) -> tuple[int, int]:
    """(mask of platforms where the condition is surely true, mask where it is surely false)."""
    true_mask = false_mask = 0
    for bit, platform in enumerate(PLATFORMS):
        value = eval_condition(condition, platform)
        if value is True:
            true_mask |= 1 << bit
        elif value is False:
            false_mask |= 1 << bit
    return true_mask, false_mask


COND_TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[A-Za-z_$][\w$]*(?:\([^()]*\))?|[^\s]+)")


def eval_condition(condition: str, platform: str):
    tokens = [m.group(1) for m in COND_TOKEN.finditer(condition) if m.group(1)]
    pos = 0

    def atom(tok: str):
        m = re.fullmatch(r"(\w+)\(([^()]*)\)", tok)
        if not m:
            return {"true": True, "false": False}.get(tok)
        func, arg = m.group(1), m.group(2).strip()
        if func == "os":
            name = PLATFORM_ALIASES.get(arg, arg)
            if name in PLATFORMS:
                return name == platform
            if arg == "macCatalyst":
                return None
            return False  # Linux, Windows, Android, WASI, FreeBSD, OpenBSD, ...
        if func == "canImport":
            module = arg.split(",")[0].strip()
            if module in APPLE_ONLY_MODULES:
                return True
            if module in NON_APPLE_MODULES:
                return False
            if module == "UIKit":
                return platform in UIKIT_PLATFORMS
            if module == "AppKit":
                return platform == "macOS"
            return None
        return None

    def parse_or():
        nonlocal pos
        value = parse_and()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            right = parse_and()
            value = True if (value is True or right is True) else (False if value is False and right is False else None)
        return value

    def parse_and():
        nonlocal pos
        value = parse_not()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            right = parse_not()
            value = False if (value is False or right is False) else (True if value is True and right is True else None)
        return value

    def parse_not():
        nonlocal pos
        if pos < len(tokens) and tokens[pos] == "!":
            pos += 1
            value = parse_not()
            return None if value is None else not value
        if pos < len(tokens) and tokens[pos] == "(":
            pos += 1
            value = parse_or()
            if pos < len(tokens) and tokens[pos] == ")":
                pos += 1
            return value
        if pos < len(tokens):
            tok = tokens[pos]
            pos += 1
            return atom(tok)
        return None

    try:
        return parse_or()
    except RecursionError:
        return None


# --------------------------------------------------------------------------------------------
# Structure: brackets, blocks, declarations, availability regions.

@dataclass
class Decl:
    name: str
    kind: str
    owner: str | None
    level: str                     # 'global', 'member' or 'local'
    labels: frozenset | None       # first argument labels a call may start with ('_' none, '' no argument)
    idx: int
    file: "SwiftFile"
    own: dict = field(default_factory=dict)
    avail: dict = field(default_factory=dict)
    usable: bool = True            # False: unavailable on Apple, obsoleted, SPI, not public (toolchain)
    back_deployed: bool = False    # @backDeployed: still needs its @available version
    extension_of: str | None = None
    owner_nested: bool = False     # a member of a nested type (Outer.Inner)

    def where(self) -> str:
        return f"{self.file.display}:{self.file.toks.line_col(self.idx)[0]}"

    def title(self) -> str:
        if self.kind in CALLABLE_KINDS and self.labels is not None:
            label = sorted(self.labels)[0] if len(self.labels) == 1 else "|".join(sorted(self.labels))
            args = "" if label == "" else f"{label}:"
            base = f"{self.owner}.{self.name}" if self.owner else self.name
            return f"{base}({args})" if self.name != "init" or not self.owner else f"{self.owner}({args})"
        return f"{self.owner}.{self.name}" if self.owner and self.level == "member" else self.name


@dataclass
class Region:
    start: int
    end: int
    versions: dict
    origin: str


@dataclass
class Check:
    idx: int
    kind: str       # '#available' or '#unavailable'
    versions: dict  # as written (no inference)
    text: str


def parse_availability(toks: Tokens, open_idx: int, close_idx: int):
    """The introduced versions of an @available(...) / #available(...) argument list, and whether
    it makes the declaration unusable on Apple platforms (unavailable, obsoleted)."""
    items: list[list[int]] = [[]]
    j = open_idx + 1
    match = toks.match
    while j < close_idx:
        if toks.kind[j] in "([{" and j in match:
            items[-1].extend(range(j, match[j] + 1))
            j = match[j] + 1
            continue
        if toks.kind[j] == ",":
            items.append([])
        else:
            items[-1].append(j)
        j += 1
    versions: dict = {}
    unusable = False
    val = toks.val
    first = [val[k] for k in items[0]] if items and items[0] else []
    if len(first) == 1 and (first[0] in PLATFORM_ALIASES or first[0] in ("*", "swift")):
        # Long form: @available(macOS, introduced: 15, deprecated: ...), @available(*, unavailable)
        platform = PLATFORM_ALIASES.get(first[0])
        for item in items[1:]:
            words = [val[k] for k in item]
            if not words:
                continue
            if words[0] == "introduced" and platform and len(words) >= 3:
                versions[platform] = parse_version(words[2])
            elif words[0] in ("unavailable", "obsoleted"):
                if platform or first[0] == "*":
                    unusable = True
                elif first[0] == "swift" and words[0] == "obsoleted" and len(words) >= 3:
                    unusable = vge((6,), parse_version(words[2]))
            elif words[0] == "introduced" and first[0] == "swift" and len(words) >= 3:
                unusable = not vge((6, 3), parse_version(words[2]))
        return versions, unusable
    for item in items:
        words = [val[k] for k in item]
        if len(words) >= 2 and words[0] in PLATFORM_ALIASES and toks.kind[item[1]] == "N":
            versions[PLATFORM_ALIASES[words[0]]] = parse_version(words[1])
    return versions, unusable


class SwiftFile:
    def __init__(self, path: str, display: str, text: str, interface: bool = False):
        self.path = path
        self.display = display
        self.interface = interface
        self.toks = Lexer(text).run()
        self.decls: list[Decl] = []
        self.regions: list[Region] = []
        self.checks: list[Check] = []
        self.name_tokens: set[int] = set()
        self.skip_tokens: set[int] = set()
        self.type_blocks: dict[int, tuple[str, str, bool]] = {}  # '{' -> (type name, keyword, nested)
        self.unbalanced = False
        self._brackets()
        self._declarations()
        if not interface:
            self._conditions()
            self._imports()

    # Brackets and the innermost '{' around each token.
    def _brackets(self):
        toks = self.toks
        match: dict[int, int] = {}
        parent = [-1] * len(toks)
        stack: list[int] = []
        braces: list[int] = []
        pairs = {")": "(", "]": "[", "}": "{"}
        kinds = toks.kind
        for i, k in enumerate(kinds):
            parent[i] = braces[-1] if braces else -1
            if k in "([{" and len(k) == 1:
                stack.append(i)
                if k == "{":
                    braces.append(i)
            elif k in ")]}" and len(k) == 1:
                want = pairs[k]
                while stack and kinds[stack[-1]] != want:
                    self.unbalanced = True
                    dropped = stack.pop()
                    if kinds[dropped] == "{":
                        braces.pop()
                if stack:
                    opener = stack.pop()
                    match[opener] = i
                    match[i] = opener
                    if k == "}":
                        braces.pop()
                        parent[i] = braces[-1] if braces else -1
                else:
                    self.unbalanced = True
        if stack:
            self.unbalanced = True
        toks.match = match
        self.parent = parent

    def block_end(self, i: int) -> int:
        """The index of the '}' closing the block around token i (len(tokens) at top level)."""
        p = self.parent[i]
        return self.toks.match.get(p, len(self.toks)) if p >= 0 else len(self.toks)

    def statement_end(self, k: int, body_kinds: bool) -> int:
        """The last token index of the declaration or statement whose keyword is at k."""
        toks = self.toks
        kinds, val, nl, match = toks.kind, toks.val, toks.nl, toks.match
        n = len(toks)
        j = k + 1
        last = k
        seen_body = False
        while j < n:
            kind = kinds[j]
            if kind in ")]}" and len(kind) == 1:
                return last
            if kind == ";":
                return last
            if nl[j] and j > k + 1:
                continues = (val[j] in CONTINUES_AT_START or val[last] in CONTINUES_AT_END
                             or (kind == "{" and body_kinds and not seen_body))
                if not continues:
                    return last
            if kind in "([{" and len(kind) == 1:
                if j not in match:
                    return n - 1
                if kind == "{":
                    seen_body = True
                last = match[j]
                j = last + 1
                continue
            last = j
            j += 1
        return last

    def first_brace_after(self, k: int) -> int | None:
        toks = self.toks
        j = k + 1
        while j < len(toks):
            kind = toks.kind[j]
            if kind == "{":
                return j
            if kind in "([" and j in toks.match:
                j = toks.match[j] + 1
                continue
            if kind in ")]};":
                return None
            j += 1
        return None

    def _attributes_before(self, k: int):
        """(first index of the declaration's attributes and modifiers, [(attribute, open, close)], modifiers)."""
        toks = self.toks
        kinds, val, match = toks.kind, toks.val, toks.match
        attrs = []
        modifiers = set()
        j = k - 1
        while j >= 0:
            if kinds[j] == "I" and val[j] in MODIFIERS:
                modifiers.add(val[j])
                j -= 1
                continue
            if kinds[j] == ")" and j in match:
                opener = match[j]
                if opener >= 1 and kinds[opener - 1] == "A":
                    attrs.append((val[opener - 1], opener, j))
                    j = opener - 2
                    continue
                if opener >= 1 and kinds[opener - 1] == "I" and val[opener - 1] in MODIFIERS_WITH_ARGUMENT:
                    modifiers.add(val[opener - 1])
                    j = opener - 2
                    continue
                break
            if kinds[j] == "A":
                attrs.append((val[j], None, None))
                j -= 1
                continue
            break
        return j + 1, attrs, modifiers

    def _declarations(self):
        toks = self.toks
        kinds, val, match = toks.kind, toks.val, toks.match
        n = len(toks)
        for k in range(n):
            if kinds[k] != "I":
                continue
            word = val[k]
            if word not in DECL_KEYWORDS:
                continue
            if k > 0 and kinds[k - 1] == ".":
                continue  # .init, .case
            nxt = val[k + 1] if k + 1 < n else ""
            if word == "class" and (nxt in DECL_KEYWORDS or nxt in MODIFIERS):
                continue  # `class func`, `class var`: a modifier
            if word == "actor" and not (k + 1 < n and kinds[k + 1] == "I" and
                                        (k + 2 >= n or val[k + 2] in ("{", ":", "<", "where"))):
                continue
            if word in ("protocol", "extension", "struct", "enum", "class") and not (k + 1 < n and kinds[k + 1] == "I"):
                continue
            if word == "macro" and not (k + 1 < n and kinds[k + 1] == "I"):
                continue
            p = self.parent[k]
            owner_nested = False
            if p < 0:
                level, owner, owner_kind = "global", None, None
            elif p in self.type_blocks:
                level = "member"
                owner, owner_kind, owner_nested = self.type_blocks[p]
            else:
                level, owner, owner_kind = "local", None, None
            if word == "case" and owner_kind != "enum" and owner_kind != "extension":
                continue  # switch cases, `if case`, `for case`
            if word in ("let", "var") and level == "local":
                continue
            first, attrs, modifiers = self._attributes_before(k)
            own: dict = {}
            unusable = False
            back_deployed = False
            spi = False
            for attr, opener, closer in attrs:
                if attr == "@available" and opener is not None:
                    versions, unusable_here = parse_availability(toks, opener, closer)
                    unusable = unusable or unusable_here
                    for platform, version in versions.items():
                        own[platform] = vmax(own.get(platform, ZERO), version)
                elif attr == "@backDeployed":
                    back_deployed = True
                elif attr == "@_spi":
                    spi = True
            own = with_inferred_visionos(own)
            # Extent of the declaration: its attributes, its header, its body.
            if word in TYPE_KEYWORDS:
                brace = self.first_brace_after(k)
                end = match.get(brace, n - 1) if brace is not None else k
            else:
                brace = None
                end = self.statement_end(k, body_kinds=word in ("func", "init", "deinit", "subscript"))
            names: list[tuple[str, int]] = []
            extension_of = None
            if word == "extension":
                j = k + 1
                path = []
                while j < n and kinds[j] == "I":
                    path.append(val[j])
                    if j + 1 < n and kinds[j + 1] == ".":
                        j += 2
                    else:
                        break
                if len(path) > 1 and path[0] in MODULE_PREFIXES:
                    path = path[1:]
                extension_of = path[-1] if path else None
                extension_nested = len(path) > 1
            elif word in ("init", "deinit", "subscript"):
                names.append((word, k))
            elif word == "case":
                j = k + 1
                expect = True
                while j <= end:
                    if kinds[j] == "I" and expect:
                        names.append((val[j], j))
                        expect = False
                    elif kinds[j] == ",":
                        expect = True
                    elif kinds[j] in "([" and j in match:
                        j = match[j]
                    j += 1
            elif k + 1 < n and kinds[k + 1] == "I":
                names.append((val[k + 1], k + 1))
            if own:
                self.regions.append(Region(first, end, own, f"@available on the {word} at line {toks.line_col(k)[0]}"))
            if word in TYPE_KEYWORDS and brace is not None:
                if word == "extension":
                    self.type_blocks[brace] = (extension_of, word, extension_nested)
                else:
                    self.type_blocks[brace] = (names[0][0] if names else "?", word, level != "global")
            public = True
            if self.interface:
                public = bool(modifiers & {"public", "open"}) or owner_kind == "protocol"
            usable = not unusable and not spi and public
            if self.interface and names and names[0][0].startswith("_"):
                usable = False
            for name, idx in names:
                self.name_tokens.add(idx)
                labels = None
                if word in CALLABLE_KINDS:
                    labels = self.first_labels(idx, word)
                elif word == "case":
                    if idx + 1 < n and kinds[idx + 1] == "(":
                        labels = self.first_labels(idx, "func")
                decl = Decl(name, word, owner, level, labels, idx, self, own=own, usable=usable,
                            back_deployed=back_deployed, owner_nested=owner_nested)
                self.decls.append(decl)
            if word == "extension" and extension_of:
                self.decls.append(Decl(extension_of, "extension", None, level, None, k, self, own=own,
                                       usable=False, extension_of=extension_of))

    def first_labels(self, idx: int, kind: str) -> frozenset | None:
        """The argument labels a call of the declaration named at idx may start with."""
        toks = self.toks
        kinds, val, match = toks.kind, toks.val, toks.match
        j = idx + 1
        n = len(toks)
        while j < n and kinds[j] == "O" and val[j] in ("?", "!"):
            j += 1
        if j < n and kinds[j] == "O" and val[j].startswith("<"):
            depth = 0
            while j < n:
                if kinds[j] == "O":
                    depth += val[j].count("<") - val[j].count(">")
                    if depth <= 0 and ">" in val[j]:
                        j += 1
                        break
                elif kinds[j] in "([{" and j in match:
                    j = match[j]
                j += 1
        if j >= n or kinds[j] != "(" or j not in match:
            return None
        close = match[j]
        params: list[list[int]] = [[]]
        i = j + 1
        while i < close:
            if kinds[i] in "([{" and i in match:
                params[-1].extend(range(i, match[i] + 1))
                i = match[i] + 1
                continue
            if kinds[i] == ",":
                params.append([])
            else:
                params[-1].append(i)
            i += 1
        labels = set()
        if params == [[]]:
            return frozenset({""})
        for param in params:
            words = []
            q = 0
            while q < len(param) and kinds[param[q]] == "A":
                q += 1
                if q < len(param) and kinds[param[q]] == "(":
                    q += match.get(param[q], param[q]) - param[q] + 1
            while q < len(param) and kinds[param[q]] == "I":
                words.append(val[param[q]])
                q += 1
            colon = q < len(param) and kinds[param[q]] == ":"
            if not colon:
                words = []
            if kind == "subscript":
                label = words[0] if len(words) >= 2 else "_"
            else:
                label = words[0] if words else "_"
            labels.add(label)
            has_default = any(kinds[t] == "O" and val[t] == "=" for t in param)
            if not has_default:
                return frozenset(labels)
        labels.add("")
        return frozenset(labels)

    def _conditions(self):
        """#available / #unavailable: the code they make newer, and the checks themselves."""
        toks = self.toks
        kinds, val, match = toks.kind, toks.val, toks.match
        n = len(toks)
        for i in range(n):
            if kinds[i] != "P" or val[i] not in ("#available", "#unavailable"):
                continue
            if i + 1 >= n or kinds[i + 1] != "(" or (i + 1) not in match:
                continue
            close = match[i + 1]
            written, _ = parse_availability(toks, i + 1, close)
            text_ = re.sub(r"\s+", " ", toks.text[toks.start[i]:toks.start[close] + 1])
            self.checks.append(Check(i, val[i], written, text_))
            versions = with_inferred_visionos(written)
            if not versions:
                continue
            # The statement: if / guard / while, at the same depth before it.
            j = i - 1
            keyword = None
            while j >= 0:
                kind = kinds[j]
                if kind in ")]" and j in match:
                    j = match[j] - 1
                    continue
                if kind in "{};" or (kind in "([" and len(kind) == 1):
                    break
                if kind == "I" and val[j] in ("if", "guard", "while"):
                    keyword = val[j]
                    break
                j -= 1
            if keyword is None:
                continue
            body = self.first_brace_after(close)
            if body is None or body not in match:
                continue
            body_end = match[body]
            origin = f"{val[i]} at line {toks.line_col(i)[0]}"
            if val[i] == "#available":
                if keyword in ("if", "while"):
                    self.regions.append(Region(body, body_end, versions, origin))
                else:  # guard: the rest of the block
                    self.regions.append(Region(body_end + 1, self.block_end(i), versions, origin))
            else:
                if keyword == "if":
                    e = body_end + 1
                    if e < n and val[e] == "else":
                        chain_end = self.statement_end(e - 1, body_kinds=False)
                        self.regions.append(Region(e, max(chain_end, e), versions, origin))
                elif keyword == "guard":
                    self.regions.append(Region(body, body_end, versions, origin))

    def _imports(self):
        toks = self.toks
        self.imports = set()
        for i in range(len(toks)):
            if toks.kind[i] == "I" and toks.val[i] == "import" and toks.nl[i]:
                j = i + 1
                while j < len(toks) and not toks.nl[j]:
                    self.skip_tokens.add(j)
                    if toks.kind[j] == "I" and toks.val[j] not in ("struct", "class", "enum", "protocol", "func",
                                                                   "var", "let", "typealias"):
                        self.imports.add(toks.val[j])
                        break
                    j += 1
                while j < len(toks) and not toks.nl[j]:
                    self.skip_tokens.add(j)
                    j += 1

    def context(self, i: int, deployment: dict, exclude: Region | None = None) -> dict:
        """Per platform: (the version code at token i may assume, where that comes from)."""
        ctx = {p: (deployment[p], "Package.swift's platforms") for p in PLATFORMS}
        for region in self.regions:
            if region is exclude or not (region.start <= i <= region.end):
                continue
            for platform, version in region.versions.items():
                if platform in ctx and not vge(ctx[platform][0], version):
                    ctx[platform] = (version, region.origin)
                elif (platform in ctx and vkey(ctx[platform][0]) == vkey(version)
                      and ctx[platform][1].startswith("Package")):
                    ctx[platform] = (version, region.origin)  # name the enclosing check, not the target
        return ctx


# --------------------------------------------------------------------------------------------
# Package.swift

def read_deployment(package_swift: str) -> dict:
    with open(package_swift, encoding="utf-8") as f:
        text = f.read()
    text = strip_comments_keep_strings(text)
    deployment = dict(SWIFTPM_OLDEST)
    m = re.search(r"\bplatforms\s*:\s*\[", text)
    if not m:
        return deployment
    depth = 1
    i = m.end()
    while i < len(text) and depth:
        depth += {"[": 1, "]": -1}.get(text[i], 0)
        i += 1
    body = text[m.end():i - 1]
    for pm in re.finditer(r'\.(macOS|iOS|tvOS|watchOS|visionOS)\s*\(\s*(?:\.v(\d+(?:_\d+)*)|"([\d.]+)")', body):
        platform = pm.group(1)
        version = parse_version(pm.group(2).replace("_", ".")) if pm.group(2) else parse_version(pm.group(3))
        deployment[platform] = vmax(version, SWIFTPM_OLDEST[platform])
    return deployment


def strip_comments_keep_strings(text: str) -> str:
    out = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


# --------------------------------------------------------------------------------------------
# The toolchain's interfaces

def find_interface_dir() -> str | None:
    swift = shutil.which("swift")
    if not swift:
        return None
    candidates = []
    try:
        info = json.loads(subprocess.run([swift, "-print-target-info"], capture_output=True, text=True,
                                         timeout=60).stdout)
        resource = info["paths"]["runtimeResourcePath"]
        platform = info["target"].get("platform") or "linux"
        candidates.append((os.path.join(resource, platform), info["target"].get("moduleTriple")))
        candidates.append((os.path.join(os.path.dirname(resource), "swift_static", platform),
                           info["target"].get("moduleTriple")))
    except (OSError, ValueError, KeyError, subprocess.SubprocessError):
        pass
    lib = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swift))), "lib")
    candidates.append((os.path.join(lib, "swift", "linux"), None))
    candidates.append((os.path.join(lib, "swift_static", "linux"), None))
    for directory, _ in candidates:
        if os.path.isdir(os.path.join(directory, "Swift.swiftmodule")) and interface_path(directory, "Swift"):
            return directory
    return None


def interface_path(directory: str, module: str) -> str | None:
    module_dir = os.path.join(directory, f"{module}.swiftmodule")
    if not os.path.isdir(module_dir):
        return None
    names = sorted(name for name in os.listdir(module_dir)
                   if name.endswith(".swiftinterface") and not name.endswith(".private.swiftinterface"))
    return os.path.join(module_dir, names[0]) if names else None


_interface_cache: dict[str, SwiftFile] = {}


def load_interface(path: str, module: str) -> SwiftFile:
    if path not in _interface_cache:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        _interface_cache[path] = SwiftFile(path, f"{module}.swiftinterface", text, interface=True)
    return _interface_cache[path]


# --------------------------------------------------------------------------------------------
# Tables of declarations, and finding uses

def newer_than(versions: dict, deployment: dict, platforms: tuple = PLATFORMS) -> bool:
    return any(p in versions and not vge(deployment[p], versions[p]) for p in platforms)


class Table:
    def __init__(self, decls: list[Decl], deployment: dict, platforms: tuple = PLATFORMS):
        self.deployment = deployment
        self.platforms = platforms
        self.memo: dict = {}
        self.by_name: dict[str, list[Decl]] = {}      # types and globals, by name
        self.members: dict[str, list[Decl]] = {}      # members, by name
        self.qualified: dict[tuple, list[Decl]] = {}  # (owner, name) -> members
        types: dict[str, list[Decl]] = {}
        for d in decls:
            if d.kind in NAMED_TYPE_KINDS:
                types.setdefault(d.name, []).append(d)
        for d in decls:
            if d.kind == "extension" or d.level == "local":
                continue
            avail = dict(d.avail)
            # Members of an extension without @available take the extended type's availability.
            if d.file.interface and d.owner and d.owner in types:
                owner_avail = [t.avail for t in types[d.owner] if t.usable]
                if owner_avail:
                    for p in PLATFORMS:
                        if all(p in a for a in owner_avail) and p not in avail:
                            avail[p] = min((a[p] for a in owner_avail), key=vkey)
            d.avail = avail
            if not d.usable:
                continue
            # The toolchain's nested types (AsyncSequence.Failure, UTF8.ValidationError.Kind) are
            # only named through their outer type.
            if d.level == "global" or (d.kind in NAMED_TYPE_KINDS and not d.file.interface):
                self.by_name.setdefault(d.name, []).append(d)
            if d.level == "member":
                self.members.setdefault(d.name, []).append(d)
                if not (d.file.interface and (d.owner_nested or d.owner.startswith("_"))):
                    self.qualified.setdefault((d.owner, d.name), []).append(d)
        # A type the sources declare hides the toolchain's of that name.
        self.source_types = {d.name for d in decls if d.kind in NAMED_TYPE_KINDS and not d.file.interface}

    def requirement(self, candidates: list[Decl]):
        """(versions every candidate needs, a candidate) when all of them are newer than the targets."""
        if not candidates:
            return None
        required = {}
        for p in self.platforms:
            versions = [d.avail.get(p, ZERO) for d in candidates]
            required[p] = min(versions, key=vkey)
        if not any(not vge(self.deployment[p], required[p]) for p in self.platforms):
            return None
        required = {p: v for p, v in required.items() if not vge(self.deployment[p], v)}
        best = max(candidates, key=lambda d: (not d.file.interface, -d.idx))
        return required, best

    @staticmethod
    def by_label(decls: list[Decl], label: str | None) -> list[Decl]:
        if label is None:
            return decls
        return [d for d in decls if d.labels is None or label in d.labels]

    def lookup_name(self, name: str):
        key = ("name", name)
        if key not in self.memo:
            self.memo[key] = self._lookup_name(name)
        return self.memo[key]

    def lookup_member(self, name: str, label: str | None):
        key = ("member", name, label)
        if key not in self.memo:
            self.memo[key] = self._lookup_member(name, label)
        return self.memo[key]

    def lookup_qualified(self, owner: str, name: str, label: str | None):
        key = ("qualified", owner, name, label)
        if key not in self.memo:
            self.memo[key] = self._lookup_qualified(owner, name, label)
        return self.memo[key]

    def _lookup_name(self, name: str):
        decls = self.by_name.get(name, [])
        if name in self.source_types:
            decls = [d for d in decls if not d.file.interface]
        return self.requirement(decls)

    def _lookup_member(self, name: str, label: str | None):
        decls = self.by_label(self.members.get(name, []), label)
        if decls and all(d.file.interface for d in decls) and not DISTINCTIVE.search(name):
            # A one-word member of the toolchain's (`.second`, `.previous`, `.immediate`) may as well
            # be Foundation's, which this cannot see: it counts only qualified by its type.
            return None
        return self.requirement(decls)

    def has_qualified(self, owner: str, name: str) -> bool:
        decls = self.qualified.get((owner, name))
        if decls and owner in self.source_types:
            decls = [d for d in decls if not d.file.interface]
        return bool(decls)

    def _lookup_qualified(self, owner: str, name: str, label: str | None):
        decls = self.qualified.get((owner, name))
        if decls and owner in self.source_types:
            decls = [d for d in decls if not d.file.interface]
        if not decls:
            return None
        return self.requirement(self.by_label(decls, label))

    def newer_entries(self):
        """Everything newer than the targets, for --list: (title, required, declaration)."""
        entries = []
        for name, decls in self.by_name.items():
            r = self.requirement(decls)
            if r:
                entries.append((name, r[0], r[1]))
        seen = set()
        for (owner, name), decls in self.qualified.items():
            labels = {None}
            for d in decls:
                if d.labels:
                    labels |= d.labels
            for label in sorted(labels, key=lambda x: (x is not None, x or "")):
                r = self.requirement(self.by_label(decls, label))
                if not r:
                    continue
                if label is not None and self.requirement(decls):
                    continue  # newer whatever the label: listed once
                args = ("" if label is None else "()" if label == "" else "(_:)" if label == "_"
                        else f"({label}:)")
                title = (f"{owner}{args or '.init'}" if name == "init" else f"{owner}.{name}{args}")
                if title not in seen:
                    seen.add(title)
                    entries.append((title, r[0], r[1]))
        return entries


def use_label(toks: Tokens, j: int) -> str | None:
    """The first argument label of a call whose '(' is at j ('_' unlabeled, '' none)."""
    if j >= len(toks) or toks.kind[j] != "(" or toks.nl[j]:
        return None
    if j + 1 < len(toks) and toks.kind[j + 1] == ")":
        return ""
    if j + 2 < len(toks) and toks.kind[j + 1] == "I" and toks.kind[j + 2] == ":":
        return toks.val[j + 1]
    return "_"


def after_generic_arguments(toks: Tokens, j: int) -> int:
    """Index after `<...>` starting at j (j itself when there is none)."""
    if j < len(toks) and toks.kind[j] == "O" and toks.val[j] == "<" and not toks.nl[j]:
        depth = 0
        k = j
        while k < len(toks) and k < j + 64:
            if toks.kind[k] == "O":
                depth += toks.val[k].count("<") - toks.val[k].count(">")
                if depth <= 0:
                    return k + 1
            elif toks.kind[k] in "{};":
                return j
            k += 1
    return j


@dataclass
class Finding:
    path: str
    line: int
    col: int
    message: str

    def __str__(self):
        return f"{self.path}:{self.line}:{self.col}: error: {self.message}"


def find_uses(f: SwiftFile, table: Table, deployment: dict) -> list[Finding]:
    toks = f.toks
    kinds, val = toks.kind, toks.val
    n = len(toks)
    findings = []
    names, members, qualified = table.by_name, table.members, table.qualified
    flagged: set[int] = set()
    for i in range(n):
        if kinds[i] != "I" or i in f.name_tokens or i in f.skip_tokens or not toks.mask[i]:
            continue
        name = val[i]
        if name in KEYWORDS and not (i > 0 and kinds[i - 1] == "." and name not in ("init", "self", "Type")):
            continue
        dotted = i > 0 and kinds[i - 1] == "."
        results = []  # (what the message names, (required versions, declaration))
        if dotted:
            owner = val[i - 2] if i >= 2 and kinds[i - 2] == "I" else None
            label = use_label(toks, i + 1)
            if owner and (i - 2) in flagged:
                continue  # `X.member` where X itself was reported
            if owner and owner[:1].isupper() and table.has_qualified(owner, name):
                results.append((f"{owner}.{name}", table.lookup_qualified(owner, name, label)))
            elif name in members and name != "init":
                results.append((name, table.lookup_member(name, label)))
        else:
            if i + 1 < n and kinds[i + 1] == ":" and name[:1].islower() and i > 0 and kinds[i - 1] in "(,":
                continue  # an argument label
            if name in names:
                results.append((name, table.lookup_name(name)))
            if name[:1].isupper() and table.has_qualified(name, "init"):
                label = use_label(toks, after_generic_arguments(toks, i + 1))
                if label is not None:
                    args = "" if label == "" else "_:" if label == "_" else f"{label}:"
                    results.append((f"{name}({args})", table.lookup_qualified(name, "init", label)))
        results = [(shown, r) for shown, r in results if r is not None]
        if not results:
            continue
        ctx = None
        best = None  # the first platform (macOS, iOS, ...) where a result is missing
        for shown, (required, decl) in results:
            if ctx is None:
                ctx = f.context(i, deployment)
            for bit, platform in enumerate(PLATFORMS):
                if not (toks.mask[i] >> bit) & 1 or platform not in required:
                    continue
                if vge(ctx[platform][0], required[platform]):
                    continue
                if best is None or bit < best[0]:
                    best = (bit, platform, shown, required, decl)
                break
        if best is None:
            continue
        _, platform, shown, required, decl = best
        line, col = toks.line_col(i)
        findings.append(Finding(
            f.display, line, col,
            f"'{shown}' is only available in {platform} {vtext(required[platform])} or newer "
            f"(declared at {decl.where()}); guard it with if #available or mark the enclosing "
            f"declaration @available"))
        flagged.add(i)
    return findings


def find_redundant_checks(f: SwiftFile, deployment: dict, platforms: tuple = PLATFORMS) -> list[Finding]:
    findings = []
    toks = f.toks
    for check in f.checks:
        ctx = f.context(check.idx, deployment)
        for bit, platform in enumerate(PLATFORMS):
            if platform not in check.versions or platform not in platforms or not (toks.mask[check.idx] >> bit) & 1:
                continue
            have, origin = ctx[platform]
            if not vge(have, check.versions[platform]):
                continue
            line, col = toks.line_col(check.idx)
            answer = "true" if check.kind == "#available" else "false"
            because = (f"Package.swift's platforms already require {platform} {vtext(have)}"
                       if origin.startswith("Package") else
                       f"the enclosing {origin} already requires {platform} {vtext(have)}")
            findings.append(Finding(
                f.display, line, col,
                f"'{check.text}' is always {answer} here: {because} (Apple's compiler warns "
                f"\"unnecessary check for '{platform}'\", an error with -warnings-as-errors); drop the check"))
            break
    return findings


# --------------------------------------------------------------------------------------------

def swift_files(root: str, dirs: list[str], excludes: list[str]) -> list[str]:
    out = []
    for d in dirs:
        base = os.path.join(root, d)
        if os.path.isfile(base) and base.endswith(".swift"):
            out.append(base)
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".swift"):
                    out.append(os.path.join(dirpath, name))
    result = []
    for path in out:
        rel = os.path.relpath(path, root)
        if any(rel == e or rel.startswith(e.rstrip("/") + "/") for e in excludes):
            continue
        result.append(path)
    return sorted(set(result))


@dataclass
class Result:
    findings: list
    files: int
    source_newer: list
    toolchain_newer: list
    platforms: tuple
    unbuilt: dict
    modules: list
    warnings: list
    deployment: dict


def check(root: str, include: list[str] | None = None, exclude: list[str] | None = None,
          toolchain_dir: str | None = None, use_toolchain: bool = True) -> Result:
    package = os.path.join(root, "Package.swift")
    if not os.path.isfile(package):
        raise FileNotFoundError(f"no Package.swift in {root}")
    deployment = read_deployment(package)
    dirs = ["Sources"] + list(include or [])
    warnings = []
    files = []
    for path in swift_files(root, dirs, list(exclude or [])):
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        f = SwiftFile(path, os.path.relpath(path, root), text)
        if f.unbalanced:
            warnings.append(f"{f.display}: brackets do not balance (across #if branches?): scopes there may be wrong")
        files.append(f)
    modules = []
    interfaces: list[SwiftFile] = []
    if use_toolchain:
        directory = toolchain_dir or find_interface_dir()
        if directory is None:
            warnings.append("the toolchain's module interfaces were not found: only the declarations in the "
                            "sources are checked")
        else:
            wanted = list(DEFAULT_MODULES)
            for f in files:
                for module in sorted(f.imports):
                    if module not in wanted and module not in IGNORED_MODULES:
                        wanted.append(module)
            for module in wanted:
                path = interface_path(directory, module)
                if path:
                    modules.append(module)
                    interfaces.append(load_interface(path, module))
            if "Swift" not in modules:
                warnings.append(f"no Swift.swiftinterface under {directory}")
    # A platform where the sources stop the build (`#if os(watchOS) #error(...) #endif`) is not checked.
    unbuilt = {}
    for f in files:
        toks = f.toks
        for i in range(len(toks)):
            if toks.kind[i] == "P" and toks.val[i] == "#error":
                for bit, platform in enumerate(PLATFORMS):
                    if (toks.sure[i] >> bit) & 1 and platform not in unbuilt:
                        unbuilt[platform] = f"{f.display}:{toks.line_col(i)[0]}"
    platforms = tuple(p for p in PLATFORMS if p not in unbuilt)
    all_decls = []
    for f in files + interfaces:
        # Each declaration's availability: its own @available and its enclosing declarations'.
        regions = sorted((r for r in f.regions if r.origin.startswith("@available")), key=lambda r: r.start)
        active: list[Region] = []
        r = 0
        for d in sorted(f.decls, key=lambda d: d.idx):
            while r < len(regions) and regions[r].start <= d.idx:
                active.append(regions[r])
                r += 1
            active = [region for region in active if region.end >= d.idx]
            versions = {}
            for region in active:
                for p, v in region.versions.items():
                    versions[p] = vmax(versions.get(p, ZERO), v)
            d.avail = versions
            all_decls.append(d)
    table = Table(all_decls, deployment, platforms)
    findings = []
    for f in files:
        findings.extend(find_uses(f, table, deployment))
        findings.extend(find_redundant_checks(f, deployment, platforms))
    findings.sort(key=lambda x: (x.path, x.line, x.col))
    source_newer = [d for f in files for d in f.decls
                    if d.level != "local" and d.kind != "extension" and newer_than(d.avail, deployment, platforms)]
    toolchain_newer = [e for e in table.newer_entries() if e[2].file.interface]
    return Result(findings=findings, files=len(files), source_newer=source_newer, toolchain_newer=toolchain_newer,
                  platforms=platforms, unbuilt=unbuilt, modules=modules, warnings=warnings, deployment=deployment)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        help="the package's root (where Package.swift is); default: this script's parent")
    parser.add_argument("--list", action="store_true", help="print the declarations newer than the targets")
    parser.add_argument("--include", action="append", default=[], metavar="DIR",
                        help="check the .swift files under DIR too (relative to the root), e.g. Tests")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATH",
                        help="skip a file or folder under Sources (relative to the root); say why in CI")
    parser.add_argument("--toolchain-dir", help="the folder holding Swift.swiftmodule/ (default: from `swift`)")
    parser.add_argument("--no-toolchain", action="store_true", help="check the sources' own declarations only")
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = os.path.abspath(args.root)
    try:
        result = check(root, args.include, args.exclude, args.toolchain_dir, not args.no_toolchain)
    except (OSError, UnicodeDecodeError) as error:
        print(f"availability: {error}", file=sys.stderr)
        return 2
    for warning in result.warnings:
        print(f"availability: warning: {warning}", file=sys.stderr)
    if args.list:
        print("deployment targets: " + spec_text(result.deployment)
              + "".join(f" ({p} not checked)" for p in result.unbuilt))
        print(f"declarations in the sources newer than the targets ({len(result.source_newer)}):")
        for d in sorted(result.source_newer, key=lambda d: (d.file.display, d.idx)):
            print(f"  {d.where()}: {d.kind} {d.title()}: {spec_text(d.avail)}")
        print(f"declarations of the toolchain ({', '.join(result.modules) or 'none read'}) newer than the "
              f"targets ({len(result.toolchain_newer)}):")
        for title, required, decl in sorted(result.toolchain_newer, key=lambda e: e[0]):
            print(f"  {title}: {spec_text(required)} ({decl.where()})")
    for finding in result.findings:
        print(finding)
    for platform, where in result.unbuilt.items():
        print(f"availability: {platform} not checked: {where} stops the build there with #error")
    elapsed = time.monotonic() - started
    summary = (f"availability: {result.files} files, {len(result.source_newer)} declarations in the sources and "
               f"{len(result.toolchain_newer)} of the toolchain newer than the targets, "
               f"{len(result.findings)} error{'s' if len(result.findings) != 1 else ''} ({elapsed:.1f} s)")
    print(summary)
    return 1 if result.findings else 0


if __name__ == "__main__":
    sys.exit(main())
