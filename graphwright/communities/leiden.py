"""Hierarchical Leiden over the undirected, weighted entity graph, stable across small changes.

Each Leiden run is the engine's (`algorithms`: graspologic's native core in this process, or Neo4j Graph
Data Science); the hierarchy, the pinning and the ids are built here, the same for both. The hierarchy is built
the way graspologic's `hierarchical_leiden` builds it (a community larger than `max_cluster_size` is split by
Leiden on its own subnetwork, level by level), but here so that the previous partition can steer every level:

- A previous community is *untouched* when none of its members' relations changed (the `graph_hash` of its
  members' incident edges is the same). An untouched community and its whole subtree are kept exactly.
- Leiden runs seeded with the previous partition (new entities start alone), and only the nodes of touched
  communities and new entities take its answer. Seeding alone is not enough: Leiden started from its own
  output still moves ~5% of communities (measured on the 2wiki-101 graph), so the untouched ones are pinned.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from graphwright.algorithms import ClientAlgorithms, Edge, GraphAlgorithms, LeidenProblem

Adjacency = dict[str, dict[str, float]]


@dataclass
class DetectedCommunity:
    id: str
    level: int
    members: list[str]
    member_hash: str
    graph_hash: str = ""
    parent: str | None = None
    children: list[str] = field(default_factory=list)
    pinned: bool = False  # an untouched previous community, kept as it was


@dataclass(frozen=True)
class PreviousCommunity:
    """A community of the last run, as detection needs it."""

    id: str
    level: int
    members: tuple[str, ...]
    parent: str | None
    graph_hash: str | None


def member_hash(members: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(members)).encode()).hexdigest()


def adjacency(edges: Iterable[Edge]) -> Adjacency:
    graph: Adjacency = defaultdict(dict)
    for a, b, w in edges:
        graph[a][b] = graph[a].get(b, 0.0) + float(w)
        graph[b][a] = graph[b].get(a, 0.0) + float(w)
    return graph


def node_signatures(graph: Adjacency) -> dict[str, str]:
    """A digest of each node's incident edges and weights: equal digests, unchanged relations."""
    return {
        node: hashlib.sha1("\n".join(f"{n}\t{w:.6g}" for n, w in sorted(nbrs.items())).encode()).hexdigest()
        for node, nbrs in graph.items()
    }


def graph_hash(members: Iterable[str], signatures: Mapping[str, str]) -> str:
    """Changes when any member's relations change, or a member leaves the graph."""
    return hashlib.sha256("\n".join(f"{m}:{signatures.get(m, '-')}" for m in sorted(members)).encode()).hexdigest()


def modularity(edges: Sequence[Edge], assignment: Mapping[str, str]) -> float:
    """Newman modularity of a partition of the nodes in `edges` (the level-0 communities)."""
    if not edges:
        return 0.0
    import graspologic_native as gn

    numbered: dict[str, int] = {}
    labels = {node: numbered.setdefault(label, len(numbered)) for node, label in assignment.items()}
    nodes = {n for a, b, _ in edges for n in (a, b)}
    for node in sorted(nodes - labels.keys()):  # not assigned: alone
        labels[node] = len(numbered) + len(labels)
    return float(gn.modularity(list(edges), {n: labels[n] for n in nodes}))


def _components(nodes: Iterable[str], graph: Adjacency) -> list[list[str]]:
    """Connected parts of the subgraph the nodes induce."""
    inside, seen, parts = set(nodes), set(), []
    for start in sorted(inside):
        if start in seen:
            continue
        seen.add(start)
        stack, part = [start], []
        while stack:
            node = stack.pop()
            part.append(node)
            for nbr in graph.get(node, {}):
                if nbr in inside and nbr not in seen:
                    seen.add(nbr)
                    stack.append(nbr)
        parts.append(sorted(part))
    return parts


@dataclass
class _Split:
    """Nodes to divide at `level` under `parent` (None: the whole graph), steered by `before`."""

    nodes: set[str]
    before: Sequence[PreviousCommunity]
    level: int
    parent: DetectedCommunity | None


@dataclass
class _Plan:
    groups: list[tuple[list[str], PreviousCommunity | None]]  # untouched previous communities, kept
    rest: set[str]
    problem: LeidenProblem | None = None  # Leiden's part: the rest's subgraph, when it has edges


class _Detector:
    def __init__(
        self,
        graph: Adjacency,
        max_cluster_size: int,
        seed: int,
        previous: Sequence[PreviousCommunity],
        engine: GraphAlgorithms,
    ) -> None:
        self.graph, self.max_cluster_size, self.seed, self.engine = graph, max_cluster_size, seed, engine
        self.signatures = node_signatures(graph)
        self.children: dict[str | None, list[PreviousCommunity]] = defaultdict(list)
        self.holder: dict[tuple[int, str], PreviousCommunity] = {}  # (level, member) -> its community then
        for p in sorted(previous, key=lambda p: p.id):
            self.children[None if p.level == 0 else p.parent].append(p)
            for m in p.members:
                self.holder[(p.level, m)] = p
        self.untouched = {
            p.id for p in previous if p.graph_hash and p.graph_hash == graph_hash(p.members, self.signatures)
        }
        # untouched communities by member, coarsest first: kept whole when a touched ancestor is re-split
        self.atoms: dict[str, list[PreviousCommunity]] = defaultdict(list)
        for p in sorted(previous, key=lambda p: (p.level, p.id)):
            if p.id in self.untouched:
                for m in p.members:
                    self.atoms[m].append(p)
        self.found: list[DetectedCommunity] = []

    def run(self) -> list[DetectedCommunity]:
        """Level by level: every community of a level that must be split is split in one engine call, so
        an engine with a cost per call (GDS: a projection) pays it once per level, not once per community."""
        splits = [_Split(set(self.graph), self.children.get(None, []), 0, None)]
        while splits:
            plans = [self._plan(s.nodes, s.before) for s in splits]
            answers = iter(self.engine.leiden([p.problem for p in plans if p.problem], seed=self.seed))
            following: list[_Split] = []
            for split, plan in zip(splits, plans):
                parts = self._parts(plan, next(answers) if plan.problem else {})
                if split.parent is None:
                    following += self._emit(parts, 0, None)
                elif len(parts) == 1 and parts[0][1] is not None:
                    # it is exactly an untouched community of the level below: split as that one was split
                    following.append(replace(split, before=self.children.get(parts[0][1].id, [])))
                elif len(parts) > 1:  # else Leiden could not split it: it stays a leaf
                    following += self._emit(parts, split.level, split.parent)
            splits = following
        return sorted(self.found, key=lambda c: (c.level, -len(c.members), c.id))

    def _emit(
        self, parts: list[tuple[list[str], PreviousCommunity | None]], level: int, parent: DetectedCommunity | None
    ) -> list[_Split]:
        """The communities of `parts` at `level`, and the splits of those too large to be leaves."""
        splits = []
        for members, pinned in parts:
            if pinned is not None:
                self._keep(pinned, parent, level)
                continue
            digest = member_hash(members)
            community = DetectedCommunity(
                id=f"L{level}-{digest[:16]}",
                level=level,
                members=members,
                member_hash=digest,
                graph_hash=graph_hash(members, self.signatures),
                parent=parent.id if parent else None,
            )
            self._add(community, parent)
            if len(members) > self.max_cluster_size:
                # the previous communities one level down, under those that held these members
                held = {self.holder[(level, m)].id for m in members if (level, m) in self.holder}
                below = [child for pid in sorted(held) for child in self.children.get(pid, [])]
                splits.append(_Split(set(members), below, level + 1, community))
        return splits

    def _add(self, community: DetectedCommunity, parent: DetectedCommunity | None) -> None:
        self.found.append(community)
        if parent is not None:
            parent.children.append(community.id)

    def _keep(self, previous: PreviousCommunity, parent: DetectedCommunity | None, level: int) -> None:
        """An untouched community and its subtree, exactly as they were; when a re-split above moved it to
        another level, the same members under the new level's ids (its report can be reused: same members)."""
        same = previous.level == level
        digest = member_hash(previous.members)
        community = DetectedCommunity(
            id=previous.id if same else f"L{level}-{digest[:16]}",
            level=level,
            members=sorted(previous.members),
            member_hash=digest,
            graph_hash=previous.graph_hash or "",
            parent=parent.id if parent else None,
            pinned=same,
        )
        self._add(community, parent)
        for child in self.children.get(previous.id, []):
            self._keep(child, community, level + 1)

    def _plan(self, nodes: set[str], before: Sequence[PreviousCommunity]) -> _Plan:
        """How `nodes` will be grouped: untouched previous communities as they were (with their record), and
        the rest re-detected by Leiden on the rest's own subgraph, seeded with the previous groups.

        The rest is scored as a part of `nodes`, not as a graph of its own: modularity's penalty is relative
        to the whole graph's weight, so the rest runs at resolution weight(rest) / weight(nodes). Otherwise
        one touched community, alone, would be split as if it were the whole graph."""
        pinned = [p for p in before if p.id in self.untouched and set(p.members) <= nodes]
        held = {m for p in pinned for m in p.members}
        plan = _Plan(groups=[(sorted(p.members), p) for p in pinned], rest=nodes - held)
        if not plan.rest:
            return plan
        rest = plan.rest
        total = sum(w for a in nodes for b, w in self.graph.get(a, {}).items() if b in nodes and a < b)
        edges = sorted((a, b, w) for a in rest for b, w in self.graph.get(a, {}).items() if b in rest and a < b)
        if edges:
            seed_of = {m: index for index, p in enumerate(before) for m in p.members if m in rest}
            start, fresh = {}, len(before)
            for node in sorted({n for a, b, _ in edges for n in (a, b)}):
                if node in seed_of:
                    start[node] = seed_of[node]
                else:  # a new entity starts alone
                    start[node], fresh = fresh, fresh + 1
            plan.problem = LeidenProblem(edges, start, sum(w for _, _, w in edges) / total)
        return plan

    def _parts(self, plan: _Plan, found: dict[str, int]) -> list[tuple[list[str], PreviousCommunity | None]]:
        """The plan's groups with Leiden's answer for the rest, each group split into its connected parts."""
        if plan.problem:
            self._keep_atoms_whole(plan.rest, found)
        groups = list(plan.groups)
        by_label: dict[int, list[str]] = defaultdict(list)
        for node in sorted(plan.rest):  # nodes without edges inside the rest stand alone
            by_label[found.get(node, -1 - len(by_label))].append(node)
        for members in by_label.values():
            groups.extend((part, None) for part in _components(members, self.graph))
        return sorted(groups, key=lambda g: g[0])

    def _keep_atoms_whole(self, rest: set[str], found: dict[str, int]) -> None:
        """An untouched deeper community that Leiden cut in two goes whole to the side holding most of it,
        so re-detecting a touched parent does not rewrite its untouched children."""
        done: set[str] = set()
        atoms = {p.id: p for node in rest for p in self.atoms.get(node, [])}
        for atom in sorted(atoms.values(), key=lambda p: (p.level, p.id)):
            members = [m for m in atom.members if m in found]
            if atom.id in done or len(members) < len(atom.members) or not set(members) <= rest:
                continue
            counts: dict[int, int] = defaultdict(int)
            for m in members:
                counts[found[m]] += 1
            label = max(counts, key=lambda k: (counts[k], -k))
            for m in members:
                found[m] = label
            done.update(p.id for m in members for p in self.atoms[m])  # it and everything inside it


def detect(
    edges: Sequence[Edge],
    max_cluster_size: int = 10,
    seed: int = 42,
    previous: Sequence[PreviousCommunity] = (),
    engine: GraphAlgorithms | None = None,
) -> list[DetectedCommunity]:
    """Communities of every level; an id is its level and member set, so an unchanged community keeps it.

    With `previous` (the last run's communities), communities whose members' relations did not change are
    kept exactly and Leiden starts from the previous partition; without it, a full detection. Entities
    without relations are not in `edges` and so in no community (they stay searchable as entities). `engine`:
    where Leiden runs (the client's by default)."""
    if not edges:
        return []
    return _Detector(adjacency(sorted(edges)), max_cluster_size, seed, previous, engine or ClientAlgorithms()).run()
