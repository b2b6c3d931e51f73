"""Symbol graphs for scripts/docs: leaves out of a module's graphs the symbols of a module it re-exports.

    python3 scripts/docs_graphs.py CORE_GRAPH GRAPH_DIR
"""

import json
import os
import sys


def filter_graphs(core_graph, graph_dir):
    """Drops from the graphs in graph_dir every symbol the core's own graph defines.

    MockNetworkTesting re-exports MockNetwork (`@_exported import`). Graphs emitted during a build
    (`-emit-symbol-graph`, as Xcode's documentation build does) then list the whole core as the
    testing module's own, and its page would repeat every class and structure of the core.
    `swift package dump-symbol-graph` leaves them out today; this keeps it so either way.
    """
    with open(core_graph) as file:
        core = {symbol["identifier"]["precise"] for symbol in json.load(file)["symbols"]}
    dropped = 0
    for name in sorted(os.listdir(graph_dir)):
        path = os.path.join(graph_dir, name)
        with open(path) as file:
            graph = json.load(file)
        gone = {s["identifier"]["precise"] for s in graph["symbols"]} & core
        if not gone:
            continue
        dropped += len(gone)
        graph["symbols"] = [s for s in graph["symbols"] if s["identifier"]["precise"] not in gone]
        graph["relationships"] = [
            r for r in graph.get("relationships", []) if r["source"] not in gone and r["target"] not in gone
        ]
        with open(path, "w") as file:
            json.dump(graph, file)
    if dropped:
        print(f"   left out {dropped} symbols of the core re-exported in {os.path.basename(graph_dir)}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    filter_graphs(sys.argv[1], sys.argv[2])
