"""Hand curation of the entity graph: merge, rename, retype and delete entities, retype and delete relations,
each one transaction that also writes its audit record; the history; and an exact undo.

How a change stays undoable: before it acts, the change snapshots what it will touch (the entities' nodes
with every property and label, their mentions, communities and relations; for a relation change only the
relations between its two ends) and stores the snapshot in its record, with a hash of the same scope after
it acted. Undo puts the snapshot back, after checking that the scope still hashes the same (a later ingest,
delete or change would otherwise be silently lost) and that no later change touches the same entities.
Derived values (degrees, synonym lists, embeddings) are left out of the hash: they are recomputed.

Each change also carries its part of the standing rules (`graphwright/curation/rules.py`), which later writes apply."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphwright.curation.contract import Embed
from graphwright.curation.rules import CurationRules, Redirect, joined_description
from graphwright.errors import CurationConflictError, InvalidRequestError, NotFoundError
from graphwright.graph_store.connection import Role, ScopedTransaction, run_batches
from graphwright.graph_store.queries import curation as q
from graphwright.graph_store.queries.entities import (
    ENTITIES_BY_ID,
    SET_ENTITY_EMBEDDINGS,
    WRITE_MENTIONS,
    WRITE_RELATIONS,
)
from graphwright.graph_store.queries.graph import ENTITIES_BY_KEY
from graphwright.graph_store.writes import SETTLE_BATCH, settle_entities
from graphwright.models import MAX_DESCRIPTION, CurationChange, entity_embedding_text
from graphwright.text.normalize import RESERVED_RELATIONS, entity_label, normalize_key, relation_type

# Entity properties recomputed after a change, so not part of what undo compares.
_DERIVED = {"embedding", "degree", "similar"}
Snapshot = dict[str, Any]
Acted = tuple[str, CurationRules, list[str]]  # summary, standing rule, entities to embed again


@dataclass
class _Scope:
    ids: list[str]
    touching: bool  # all relations touching the entities (entity changes), or only those among them
    nodes: bool = True  # the entities' nodes too (not for a relation change: it leaves them as they are)


class CurationStore(Role):
    # --- reads -----------------------------------------------------------------------------------------
    def history(self, offset: int = 0, limit: int = 50) -> list[CurationChange]:
        rows = self.connection.read(q.CHANGES, offset=offset, limit=limit)
        return [CurationChange.model_validate({**r, "affected": r["affected"] or []}) for r in rows]

    # --- changes ---------------------------------------------------------------------------------------
    # Each `act` gets the transaction, the snapshot of what it will touch and the entity ids its names mean;
    # it returns its summary, its standing rule and the entities to embed again.
    def merge(self, source: str, target: str, *, who: str, embed: Embed | None = None) -> CurationChange:

        def act(tx: ScopedTransaction, before: Snapshot, ids: list[str]) -> Acted:
            a_id, b_id = ids
            if a_id == b_id:
                raise InvalidRequestError(f"{source!r} and {target!r} are the same entity")
            gone, kept = before["entities"][a_id], before["entities"][b_id]
            rows = []
            for rel in before["relations"]:
                s = b_id if rel["source"] == a_id else rel["source"]
                t = b_id if rel["target"] == a_id else rel["target"]
                if a_id not in (rel["source"], rel["target"]) or s == t:
                    continue  # the survivor's own relation, or one between the two (it would loop)
                rows.append(_relation_row(s, rel["type"], t, rel["props"]))
            counts = dict(map(tuple, kept["mentions"]))
            for chunk, n in gone["mentions"]:
                counts[chunk] = (counts.get(chunk) or 0) + (n or 1)
            mentions = [{"chunk_id": c, "entity_id": b_id, "count": n} for c, n in counts.items()]
            keep_props, gone_props = kept["props"], gone["props"]
            aliases = sorted({*(keep_props.get("aliases") or []), *_names_of(gone_props)} - {keep_props["name"]})
            description = joined_description(keep_props.get("description") or "", gone_props.get("description") or "")
            tx.run(q.DELETE_ENTITIES, ids=[a_id]).consume()
            run_batches(tx, WRITE_RELATIONS, "rows", rows, 500, max_description=MAX_DESCRIPTION)
            run_batches(tx, WRITE_MENTIONS, "rows", mentions, 500)
            tx.run(q.SET_ENTITY_PROPERTIES, id=b_id, props={"aliases": aliases, "description": description}).consume()
            keys = sorted(set(map(normalize_key, _names_of(gone_props))))
            rule = CurationRules(redirects=[Redirect(keys=keys, ids=[a_id], to=b_id, name=keep_props["name"])])
            return f"merged {gone_props['name']!r} into {keep_props['name']!r}", rule, [b_id]

        scope = _Scope([source, target], touching=True)
        return self._change("merge", {"source": source, "target": target}, who, scope, act, embed)

    def rename(self, entity: str, new_name: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        name = " ".join(new_name.split())
        if not name or not normalize_key(name):
            raise InvalidRequestError("the new name is empty")

        def act(tx: ScopedTransaction, before: Snapshot, ids: list[str]) -> Acted:
            (e_id,) = ids
            props = before["entities"][e_id]["props"]
            old, key = props["name"], normalize_key(name)
            if key != props.get("key") and tx.run(ENTITIES_BY_KEY, keys=[key]).single() is not None:
                raise CurationConflictError(f"an entity is already named {name!r}: merge into it instead")
            aliases = sorted({*(props.get("aliases") or []), old} - {name})
            tx.run(q.SET_ENTITY_PROPERTIES, id=e_id, props={"name": name, "key": key, "aliases": aliases}).consume()
            rule = CurationRules(
                redirects=[Redirect(keys=[normalize_key(old)], ids=[], to=e_id, name=name)], names={e_id: name}
            )
            return f"renamed {old!r} to {name!r}", rule, [e_id]

        scope = _Scope([entity], touching=False)
        return self._change("rename", {"entity": entity, "name": name}, who, scope, act, embed)

    def retype(self, entity: str, new_type: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        type_ = _type_name(new_type)

        def act(tx: ScopedTransaction, before: Snapshot, ids: list[str]) -> Acted:
            (e_id,) = ids
            found = before["entities"][e_id]
            labels = [{"id": e_id, "label": label} for label in found["labels"]]
            run_batches(tx, q.REMOVE_ENTITY_LABEL, "rows", labels, 500)
            tx.run(q.SET_ENTITY_PROPERTIES, id=e_id, props={"type": type_}).consume()
            tx.run(q.ADD_ENTITY_LABEL, rows=[{"id": e_id, "label": entity_label(type_)}]).consume()
            summary = f"retyped {found['props']['name']!r} from {found['props'].get('type')} to {type_}"
            return summary, CurationRules(types={e_id: type_}), [e_id]

        scope = _Scope([entity], touching=False)
        return self._change("retype", {"entity": entity, "type": type_}, who, scope, act, embed)

    def describe(self, entity: str, description: str, *, who: str, embed: Embed | None = None) -> CurationChange:
        text = " ".join(description.split())[:MAX_DESCRIPTION]

        def act(tx: ScopedTransaction, before: Snapshot, ids: list[str]) -> Acted:
            (e_id,) = ids
            tx.run(q.SET_ENTITY_PROPERTIES, id=e_id, props={"description": text}).consume()
            name = before["entities"][e_id]["props"]["name"]
            return f"described {name!r}", CurationRules(described=[e_id]), [e_id]  # its vector reads it

        scope = _Scope([entity], touching=False)
        return self._change("describe", {"entity": entity, "description": text}, who, scope, act, embed)

    def delete_entity(self, entity: str, *, who: str) -> CurationChange:

        def act(tx: ScopedTransaction, before: Snapshot, ids: list[str]) -> Acted:
            (e_id,) = ids
            props = before["entities"][e_id]["props"]
            tx.run(q.DELETE_ENTITIES, ids=[e_id]).consume()
            keys = sorted(set(map(normalize_key, _names_of(props))))
            return f"deleted {props['name']!r}", CurationRules(blocked_ids=[e_id], blocked_keys=keys), []

        return self._change("delete", {"entity": entity}, who, _Scope([entity], touching=True), act, None)

    def retype_relation(self, source: str, type_: str, target: str, new_type: str, *, who: str) -> CurationChange:
        old, new = _relation_type_name(type_), _relation_type_name(new_type)

        def act(tx: ScopedTransaction, before: Snapshot, ends: list[str]) -> Acted:
            rel = _the_relation(before, ends, old)
            tx.run(q.DELETE_RELATION, source=ends[0], target=ends[1], type=old).consume()
            row = _relation_row(ends[0], new, ends[1], rel["props"])
            tx.run(WRITE_RELATIONS, rows=[row], max_description=MAX_DESCRIPTION).consume()
            summary = f"retyped {_relation_text(before, ends, old)} to {new}"
            return summary, CurationRules(relation_types=[(ends[0], old, ends[1], new)]), []

        scope = _Scope([source, target], touching=False, nodes=False)
        args = {"source": source, "type": old, "target": target, "new_type": new}
        return self._change("relation-retype", args, who, scope, act, None)

    def delete_relation(self, source: str, type_: str, target: str, *, who: str) -> CurationChange:
        old = _relation_type_name(type_)

        def act(tx: ScopedTransaction, before: Snapshot, ends: list[str]) -> Acted:
            _the_relation(before, ends, old)
            tx.run(q.DELETE_RELATION, source=ends[0], target=ends[1], type=old).consume()
            summary = f"deleted {_relation_text(before, ends, old)}"
            return summary, CurationRules(blocked_relations=[(ends[0], old, ends[1])]), []

        scope = _Scope([source, target], touching=False, nodes=False)
        args = {"source": source, "type": old, "target": target}
        return self._change("relation-delete", args, who, scope, act, None)

    def undo(self, change_id: str | None, *, who: str) -> CurationChange:

        def work(tx: ScopedTransaction) -> CurationChange:
            seq = tx.run(q.CURATION_LOCK).single()
            if seq is None:
                raise NotFoundError("this workspace holds no graph yet (run `graphwright init` or ingest)")
            wanted = change_id
            if wanted is None:
                last = tx.run(q.LAST_ACTIVE_CHANGE).single()
                if last is None:
                    raise NotFoundError("no change to undo")
                wanted = last["id"]
            row = tx.run(q.CHANGE, id=wanted).single()
            if row is None:
                raise NotFoundError(f"no change {wanted!r} in this workspace (see `graphwright history`)")
            if row["op"] == "undo":
                raise CurationConflictError(f"{wanted} is an undo; make the change again instead")
            if row["status"] != "applied":
                raise CurationConflictError(f"change {wanted} ({row['summary']}) is {row['status']} already")
            later = tx.run(q.LATER_ACTIVE_CHANGES, seq=row["seq"], affected=row["affected"]).data()
            if later:
                names = ", ".join(f"{c['id']} ({c['summary']})" for c in later)
                raise CurationConflictError(f"later changes touch the same entities; undo them first: {names}")
            before = json.loads(row["before"])
            scope = _Scope(list(before["scope"]), bool(before["touching"]), bool(before["nodes"]))
            now = _snapshot(tx, scope)
            if _state_hash(now) != row["after_hash"]:
                raise CurationConflictError(
                    f"the entities of change {wanted} ({row['summary']}) changed since (an ingest, a delete or "
                    "an edit); undoing it would lose that. Undo or redo the edit by hand instead."
                )
            _restore(tx, scope, now, before)
            mark = f"c{seq['seq']}"
            tx.run(q.MARK_UNDONE, id=wanted, by=mark).consume()
            summary = f"undid {wanted}: {row['summary']}"
            _record(tx, mark, seq["seq"], "undo", {"change": wanted}, who, summary, row["affected"], None, None, None)
            _store_rules(tx)
            return CurationChange(
                id=mark,
                seq=seq["seq"],
                op="undo",
                summary=summary,
                who=who,
                status="applied",
                affected=row["affected"],
                undoes=wanted,
            )

        return self.connection.execute_write(work)

    # --- the frame every change runs in ---------------------------------------------------------------
    def _change(
        self,
        op: str,
        args: dict[str, Any],
        who: str,
        scope: _Scope,
        act: Callable[[ScopedTransaction, Snapshot, list[str]], Acted],
        embed: Embed | None,
    ) -> CurationChange:
        """Lock, resolve the names (scope.ids holds them as given), snapshot, act, settle, record."""

        def work(tx: ScopedTransaction) -> CurationChange:
            seq = tx.run(q.CURATION_LOCK).single()
            if seq is None:
                raise NotFoundError("this workspace holds no graph yet (run `graphwright init` or ingest)")
            ids = [_entity_id(tx, ref) for ref in scope.ids]
            resolved = _Scope(list(dict.fromkeys(ids)), scope.touching, scope.nodes)
            found = tx.run(q.NEIGHBOUR_IDS, ids=resolved.ids).single()
            neighbours = found["ids"] if found else []
            before = _snapshot(tx, resolved)
            summary, rule, reembed = act(tx, before, ids)
            settle_entities(tx, [*resolved.ids, *neighbours], SETTLE_BATCH)
            after = _snapshot(tx, resolved)
            change_id = f"c{seq['seq']}"
            _record(tx, change_id, seq["seq"], op, args, who, summary, resolved.ids, before, _state_hash(after), rule)
            _store_rules(tx)
            _embed_entities(tx, reembed, embed)
            return CurationChange(
                id=change_id, seq=seq["seq"], op=op, summary=summary, who=who, status="applied", affected=resolved.ids
            )

        return self.connection.execute_write(work)


# --- helpers ---------------------------------------------------------------------------------------------
def _entity_id(tx: ScopedTransaction, ref: str) -> str:
    """The entity an id or a name means (exact name, case and punctuation forgiven)."""
    rows = tx.run(q.CURATION_ENTITY, ref=ref, key=normalize_key(ref)).data()
    if not rows:
        raise NotFoundError(f"no entity named {ref!r} (see `graphwright show entity` for the closest names)")
    exact = [r for r in rows if r["id"] == ref]
    if exact:
        return str(exact[0]["id"])
    if len(rows) > 1:
        listed = ", ".join(f"{r['id']} ({r['name']}, {r['type']})" for r in rows)
        raise InvalidRequestError(f"{ref!r} names several entities; give an id: {listed}")
    return str(rows[0]["id"])


def _type_name(raw: str) -> str:
    """A type as the graph stores it ("invested in" -> INVESTED_IN); text of no letter is refused."""
    if not any(ch.isalpha() for ch in raw):
        raise InvalidRequestError(f"{raw!r} is not a type name (letters, digits and _)")
    return relation_type(raw)


def _relation_type_name(raw: str) -> str:
    if raw.strip().upper() in RESERVED_RELATIONS:
        raise InvalidRequestError(f"{raw.strip().upper()} is graphwright's own relationship type")
    return _type_name(raw)


def _relation_row(source: str, type_: str, target: str, props: dict[str, Any]) -> dict[str, Any]:
    ids = list(props.get("chunk_ids") or [])
    return {
        "source": source,
        "target": target,
        "type": type_,
        "description": props.get("description") or "",
        "chunk_ids": ids,
        "chunk_weights": list(props.get("chunk_weights") or [1.0] * len(ids)),
        "evidence": list(props.get("evidence") or [""] * len(ids)),
    }


def _names_of(props: dict[str, Any]) -> list[str]:
    """An entity's name and aliases, as a snapshot holds them."""
    return [props["name"], *(props.get("aliases") or [])]


def _relation_text(before: Snapshot, ends: list[str], type_: str) -> str:
    names = before["names"]
    return f"{names[ends[0]]!r} -[{type_}]-> {names[ends[1]]!r}"


def _the_relation(before: dict[str, Any], ends: list[str], type_: str) -> dict[str, Any]:
    for rel in before["relations"]:
        if (rel["source"], rel["type"], rel["target"]) == (ends[0], type_, ends[1]):
            return dict(rel)
    raise NotFoundError(f"no relation {_relation_text(before, ends, type_)}")


def _snapshot(tx: ScopedTransaction, scope: _Scope) -> dict[str, Any]:
    entities: dict[str, Any] = {}
    names: dict[str, str] = {}
    for row in tx.run(q.SNAPSHOT_ENTITIES, ids=scope.ids):
        names[row["id"]] = row["props"].get("name", row["id"])
        if not scope.nodes:
            continue
        entities[row["id"]] = {"props": _plain(row["props"]), "labels": sorted(row["labels"])}
        if scope.touching:  # a rename or retype leaves the neighbourhood as it is
            entities[row["id"]]["mentions"] = sorted([list(m) for m in row["mentions"]])
            entities[row["id"]]["communities"] = sorted(row["communities"])
    relations = sorted(
        (
            {"source": r["source"], "type": r["type"], "target": r["target"], "props": _plain(r["props"])}
            for r in tx.run(q.SNAPSHOT_RELATIONS, ids=scope.ids, touching=scope.touching)
        ),
        key=lambda r: (r["source"], r["type"], r["target"]),
    )
    return {
        "scope": scope.ids,
        "touching": scope.touching,
        "nodes": scope.nodes,
        "entities": entities,
        "relations": relations,
        "names": names,
    }


def _plain(props: dict[str, Any]) -> dict[str, Any]:
    """Properties as JSON keeps them (Neo4j temporal values as text)."""
    return {k: (v if isinstance(v, (str, int, float, bool, list, type(None))) else str(v)) for k, v in props.items()}


def _state_hash(snapshot: dict[str, Any]) -> str:
    """What undo compares: the snapshot without derived values (degrees, synonyms, embeddings, communities)."""
    view = {
        "entities": {
            i: {**e, "props": {k: v for k, v in e["props"].items() if k not in _DERIVED}, "communities": None}
            for i, e in snapshot["entities"].items()
        },
        "relations": snapshot["relations"],
    }
    return hashlib.sha256(json.dumps(view, sort_keys=True, default=str).encode()).hexdigest()


def _restore(tx: ScopedTransaction, scope: _Scope, now: dict[str, Any], before: dict[str, Any]) -> None:
    tx.run(q.DELETE_RELATIONS_OF, ids=scope.ids, touching=scope.touching).consume()
    if scope.touching:
        tx.run(q.DELETE_MENTIONS_OF, ids=scope.ids).consume()
        created = [i for i in now["entities"] if i not in before["entities"]]
        tx.run(q.DELETE_ENTITIES, ids=created).consume()
    if scope.nodes:
        _restore_entities(tx, now, before)
    run_batches(tx, q.RESTORE_RELATIONS, "rows", before["relations"], 500)
    neighbours = {r["source"] for r in before["relations"]} | {r["target"] for r in before["relations"]}
    settle_entities(tx, sorted(neighbours | set(scope.ids)), SETTLE_BATCH)


def _restore_entities(tx: ScopedTransaction, now: Snapshot, before: Snapshot) -> None:
    """The snapshot's nodes as they were: properties, labels, embedding, mentions, community links."""
    removed = [{"id": i, "label": label} for i, e in now["entities"].items() for label in e["labels"]]
    run_batches(tx, q.REMOVE_ENTITY_LABEL, "rows", removed, 500)
    rows, labels, vectors, mentions, communities = [], [], [], [], []
    for entity_id, found in before["entities"].items():
        props = dict(found["props"])
        vector = props.pop("embedding", None)
        rows.append({"id": entity_id, "props": props})
        labels += [{"id": entity_id, "label": label} for label in found["labels"]]
        if vector is not None:
            vectors.append({"id": entity_id, "embedding": vector})
        mentions += [{"chunk_id": c, "entity_id": entity_id, "count": n} for c, n in found.get("mentions", [])]
        communities += [{"id": entity_id, "community": c} for c in found.get("communities", [])]
    run_batches(tx, q.RESTORE_ENTITIES, "rows", rows, 500)
    run_batches(tx, q.ADD_ENTITY_LABEL, "rows", labels, 500)
    run_batches(tx, SET_ENTITY_EMBEDDINGS, "rows", vectors, 500)
    run_batches(tx, WRITE_MENTIONS, "rows", mentions, 500)
    run_batches(tx, q.RESTORE_COMMUNITY_LINKS, "rows", communities, 500)


def _record(
    tx: ScopedTransaction,
    change_id: str,
    seq: int,
    op: str,
    args: dict[str, Any],
    who: str,
    summary: str,
    affected: list[str],
    before: dict[str, Any] | None,
    after_hash: str | None,
    rule: CurationRules | None,
) -> None:
    props = {
        "seq": seq,
        "op": op,
        "args": json.dumps(args, sort_keys=True),
        "who": who,
        "summary": summary,
        "status": "applied",
        "affected": affected,
        "before": json.dumps(before, default=str) if before is not None else None,
        "after_hash": after_hash,
        "rule": rule.model_dump_json() if rule is not None else None,
        "undoes": args.get("change") if op == "undo" else None,
    }
    tx.run(q.WRITE_CHANGE, id=change_id, props=props).consume()


def _store_rules(tx: ScopedTransaction) -> None:
    """The standing rules: those of every change not undone, folded in order."""
    parts = [CurationRules.model_validate_json(r["rule"]) for r in tx.run(q.ACTIVE_RULES)]
    folded = CurationRules.folded(parts)
    tx.run(q.SET_CURATION_RULES, rules=None if folded.empty else folded.model_dump_json()).consume()


def _embed_entities(tx: ScopedTransaction, ids: list[str], embed: Embed | None) -> None:
    """New embeddings for entities whose name, type or description a change rewrote; their synonym lists
    are cleared (link_similar fills them again)."""
    if not ids:
        return
    rows = tx.run(ENTITIES_BY_ID, ids=ids).data()
    for row in rows:
        tx.run(q.SET_ENTITY_PROPERTIES, id=row["id"], props={"similar": None}).consume()
    if embed is None or not rows:
        return
    vectors = embed([entity_embedding_text(r["name"], r["type"], r["description"]) for r in rows])
    run_batches(
        tx, SET_ENTITY_EMBEDDINGS, "rows", [{"id": r["id"], "embedding": v} for r, v in zip(rows, vectors)], 500
    )
