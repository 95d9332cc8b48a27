"""Graph Data Science: projections from rows the caller sends, Leiden and PageRank (GdsRole)."""

from __future__ import annotations

# Graphs are projected from rows the caller sends (integer node ids, no labels), so a projection holds only
# what the caller read from its own workspace; every name is unique to one call and dropped after it.
GDS_VERSION = "RETURN gds.version() AS version"

GDS_PROJECT_UNDIRECTED = """
UNWIND $edges AS e
WITH gds.graph.project($name, e[0], e[1],
    {sourceNodeProperties: {seed: e[3]}, targetNodeProperties: {seed: e[4]}, relationshipProperties: {weight: e[2]}},
    {undirectedRelationshipTypes: ['*']}) AS g
RETURN g.nodeCount AS nodes
"""

GDS_PROJECT_DIRECTED = """
UNWIND $edges AS e
WITH gds.graph.project($name, e[0], e[1], {relationshipProperties: {weight: e[2]}}) AS g
RETURN g.nodeCount AS nodes
"""

GDS_LEIDEN = """
CALL gds.leiden.stream($name, {relationshipWeightProperty: 'weight', gamma: $gamma, randomSeed: $seed,
    tolerance: 0.0000001, concurrency: 1})
YIELD nodeId, communityId
RETURN nodeId AS node, communityId AS community
"""

# Started from the last partition. GDS 2.13 estimates a seeded Leiden at about 16 bytes x nodes^2 (87 GB for a
# 74k-node graph) and refuses to run it; measured, the server's heap rose ~0.4 GiB, so its guard is bypassed
# (`sudo`) for a seeded run only: a real shortage still fails the call, and `auto` computes in the client.
GDS_LEIDEN_SEEDED = GDS_LEIDEN.replace("concurrency: 1}", "seedProperty: 'seed', sudo: true, concurrency: 1}")

GDS_PAGERANK = """
CALL gds.pageRank.stream($name, {relationshipWeightProperty: 'weight', dampingFactor: $damping,
    maxIterations: $iterations, tolerance: $tolerance, sourceNodes: $sources, concurrency: 1})
YIELD nodeId, score
RETURN nodeId AS node, score
"""

GDS_DROP = "CALL gds.graph.drop($name, false) YIELD graphName RETURN graphName"
