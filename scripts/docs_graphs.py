"""Symbol graphs for scripts/docs: leaves out of a module's graphs the symbols of the modules it re-exports.

    python3 scripts/docs_graphs.py GRAPH_DIR OTHER_GRAPH...
"""

import json
import os
import sys


def filter_graphs(graph_dir, other_graphs):
    """Drops from the graphs in graph_dir every symbol one of other_graphs (other modules' own
    graphs: the core's, MockNetworkGraphQL's, …) defines.

    MockNetworkTesting re-exports MockNetwork, MockNetworkGraphQL and MockNetworkArchives
    (`@_exported import`). Graphs emitted during a build (`-emit-symbol-graph`, as Xcode's
    documentation build does) then list those modules' symbols as the testing module's own, and its
    page would repeat every class and structure of theirs. `swift package dump-symbol-graph` leaves
    them out today; this keeps it so either way.
    """
    others = set()
    for other in other_graphs:
        with open(other) as file:
            others |= {symbol["identifier"]["precise"] for symbol in json.load(file)["symbols"]}
    dropped = 0
    for name in sorted(os.listdir(graph_dir)):
        path = os.path.join(graph_dir, name)
        with open(path) as file:
            graph = json.load(file)
        gone = {s["identifier"]["precise"] for s in graph["symbols"]} & others
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
        print(f"   left out {dropped} symbols of other modules re-exported in {os.path.basename(graph_dir)}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    filter_graphs(sys.argv[1], sys.argv[2:])
