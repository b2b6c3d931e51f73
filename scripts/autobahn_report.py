#!/usr/bin/env python3
"""Reads Autobahn|Testsuite fuzzingclient reports, for scripts/autobahn.

    autobahn_report.py summary REPORT_DIR [--expect ID,ID,...] [--allow-non-strict]
    autobahn_report.py compare DIR_A DIR_B

summary: one line per case that is not OK (or INFORMATIONAL), the counts of each outcome per case
group, and the duration of each 9.* case; exits 1 unless every case is OK or INFORMATIONAL, with
its close behaviour OK or INFORMATIONAL too (UNIMPLEMENTED passes only for the compression cases,
12.* and 13.*; NON-STRICT only with --allow-non-strict). --expect names the cases that were asked
for: one that is not in the report counts as MISSING, and fails.

compare: the 9.* durations of two reports side by side.
"""
import json
import os
import re
import sys

OUTCOMES = ["OK", "NON-STRICT", "INFORMATIONAL", "FAILED", "UNIMPLEMENTED"]
GROUPS = {"1": "Framing", "2": "Pings/Pongs", "3": "Reserved Bits", "4": "Opcodes",
          "5": "Fragmentation", "6": "UTF-8 Handling", "7": "Close Handling",
          "9": "Limits/Performance", "10": "Auto-Fragmentation",
          "12": "Compression (payloads)", "13": "Compression (parameters)"}
PASSING_CLOSE = ("OK", "INFORMATIONAL")


def case_key(case_id):
    return tuple(int(x) for x in case_id.split("."))


def load(directory):
    """The report's agent and its cases: {case id: index entry plus the case's own JSON}."""
    index_path = os.path.join(directory, "index.json")
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"autobahn: no readable report at {index_path}: {error}")
    if len(index) == 0:
        return None, {}
    if len(index) > 1:
        sys.exit(f"autobahn: {index_path} holds {len(index)} agents ({', '.join(sorted(index))}); one expected")
    agent, cases = next(iter(index.items()))
    full = {}
    for case_id, entry in cases.items():
        detail = {}
        path = os.path.join(directory, entry.get("reportfile", ""))
        if entry.get("reportfile") and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                detail = json.load(f)
        full[case_id] = {**detail, **entry}
    return agent, full


def passes(case_id, case, allow_non_strict):
    behavior = case.get("behavior")
    if behavior == "UNIMPLEMENTED":
        return case_id.split(".")[0] in ("12", "13")
    allowed = ("OK", "INFORMATIONAL", "NON-STRICT") if allow_non_strict else ("OK", "INFORMATIONAL")
    return behavior in allowed and case.get("behaviorClose") in PASSING_CLOSE


def snippet(text, width):
    text = " ".join(re.sub(r"<[^>]*>", " ", str(text or "")).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def short_nine(description):
    """A 9.* case's description without its boilerplate: what it sends, how big, how cut."""
    d = snippet(description, 400).replace("message message", "message")
    d = re.sub(r"^Send ", "", d)
    # The size from its expression: some parenthesised sizes upstream are wrong (9.2.5, 9.3.9).
    d = re.sub(r" with (message )?payload of length (\d+) \* 2\*\*(\d+) \(\w+\)\.?",
               lambda m: ", %d%s" % (int(m[2]) * 2 ** (int(m[3]) % 10), {10: "k", 20: "M"}[int(m[3]) // 10 * 10]), d)
    d = re.sub(r" Sent out (data )?in ", " in ", d)
    d = re.sub(r" to measure .*", "", d)
    return snippet(d, 70)


def summary(directory, expect, allow_non_strict):
    agent, cases = load(directory)
    missing = sorted(set(expect) - set(cases), key=case_key)
    print(f"Report: {os.path.join(os.path.abspath(directory), 'index.html')} (agent: {agent}), "
          f"{len(cases)} case(s)")

    bad = [c for c in sorted(cases, key=case_key) if not passes(c, cases[c], allow_non_strict)]
    if bad or missing:
        print()
        print(f"Cases not OK ({len(bad)}), and missing ({len(missing)}):")
        for case_id in bad:
            case = cases[case_id]
            print(f"  {case_id:<9} {case.get('behavior')} / close {case.get('behaviorClose')}: "
                  f"{snippet(case.get('description'), 70)}")
            print(f"  {'':<9} result: {snippet(case.get('result'), 200)}")
            print(f"  {'':<9} events received: {snippet(json.dumps(case.get('received')), 120)}")
            if case.get("behaviorClose") not in PASSING_CLOSE:
                print(f"  {'':<9} close: {snippet(case.get('resultClose'), 120)} "
                      f"(remote code {case.get('remoteCloseCode')}, "
                      f"reason {snippet(case.get('remoteCloseReason'), 60)!r})")
        for case_id in missing:
            print(f"  {case_id:<9} MISSING: asked for, but not in the report (the run stopped, or the case broke)")

    print()
    columns = OUTCOMES + ["other", "close not OK"]
    widths = {c: max(len(c), 4) + 2 for c in columns}
    print(f"{'group':<30}" + "".join(f"{c:>{widths[c]}}" for c in columns))
    totals = dict.fromkeys(columns, 0)
    groups = sorted({c.split(".")[0] for c in cases}, key=int)
    for group in groups:
        row = dict.fromkeys(columns, 0)
        for case_id, case in cases.items():
            if case_id.split(".")[0] != group:
                continue
            behavior = case.get("behavior")
            row[behavior if behavior in OUTCOMES else "other"] += 1
            if case.get("behaviorClose") not in PASSING_CLOSE and behavior != "UNIMPLEMENTED":
                row["close not OK"] += 1
        for c in columns:
            totals[c] += row[c]
        print(f"{group + ' ' + GROUPS.get(group, ''):<30}" + "".join(f"{row[c]:>{widths[c]}}" for c in columns))
    print(f"{'all':<30}" + "".join(f"{totals[c]:>{widths[c]}}" for c in columns))

    nines = sorted((c for c in cases if c.startswith("9.")), key=case_key)
    if nines:
        print()
        print("9.* durations (ms, from the case's connection to its close):")
        for case_id in nines:
            case = cases[case_id]
            flag = "" if passes(case_id, case, allow_non_strict) else f"  [{case.get('behavior')}]"
            print(f"  {case_id:<7} {case.get('duration', 0):>8}  {short_nine(case.get('description'))}{flag}")
        print(f"  {'total':<7} {sum(cases[c].get('duration', 0) for c in nines):>8}")

    print()
    if not cases:
        print("FAIL: the report holds no case (could the fuzzing client connect?)")
        log = os.path.join(directory, "wstest.log")
        if os.path.exists(log):
            with open(log, encoding="utf-8", errors="replace") as f:
                for line in f:
                    if "failed" in line.lower():
                        print("  wstest: " + line.rstrip())
        return 1
    if bad or missing:
        print(f"FAIL: {len(bad)} case(s) not OK, {len(missing)} missing, of {len(cases) + len(missing)}")
        return 1
    print(f"PASS: all {len(cases)} case(s) OK" + (" (or NON-STRICT)" if allow_non_strict else "")
          + " or INFORMATIONAL" + (", compression UNIMPLEMENTED" if totals["UNIMPLEMENTED"] else ""))
    return 0


def compare(dir_a, dir_b):
    agent_a, a = load(dir_a)
    agent_b, b = load(dir_b)
    nines = sorted({c for c in list(a) + list(b) if c.startswith("9.")}, key=case_key)
    if not nines:
        sys.exit("autobahn: neither report has a 9.* case")
    name_a, name_b = f"A: {agent_a}", f"B: {agent_b}"
    print(f"A = {os.path.abspath(dir_a)} ({agent_a})")
    print(f"B = {os.path.abspath(dir_b)} ({agent_b})")
    print(f"{'case':<8}{'A ms':>10}{'B ms':>10}{'B/A':>8}  description")

    def cell(report, case_id):
        case = report.get(case_id)
        if case is None:
            return "-", None
        mark = "" if passes(case_id, case, True) else "!"
        return f"{case.get('duration', 0)}{mark}", case.get("duration", 0)

    total_a = total_b = 0
    for case_id in nines:
        text_a, ms_a = cell(a, case_id)
        text_b, ms_b = cell(b, case_id)
        ratio = f"{ms_b / ms_a:.2f}" if ms_a and ms_b is not None else "-"
        if ms_a is not None and ms_b is not None:
            total_a, total_b = total_a + ms_a, total_b + ms_b
        description = (a.get(case_id) or b.get(case_id)).get("description")
        print(f"{case_id:<8}{text_a:>10}{text_b:>10}{ratio:>8}  {short_nine(description)}")
    ratio = f"{total_b / total_a:.2f}" if total_a else "-"
    print(f"{'total':<8}{total_a:>10}{total_b:>10}{ratio:>8}  (cases in both)")
    print("! = the case was not OK in that run (its time may mean nothing)")
    return 0


def main(argv):
    if len(argv) >= 2 and argv[0] == "summary":
        directory, expect, allow = argv[1], [], False
        rest = argv[2:]
        while rest:
            if rest[0] == "--expect" and len(rest) > 1:
                expect = [c for c in rest[1].split(",") if c]
                rest = rest[2:]
            elif rest[0] == "--allow-non-strict":
                allow, rest = True, rest[1:]
            else:
                sys.exit(__doc__)
        return summary(directory, expect, allow)
    if len(argv) == 3 and argv[0] == "compare":
        return compare(argv[1], argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
