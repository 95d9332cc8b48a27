// The Knowledge graph tab: cytoscape.js (vendored) draws the whole graph's most connected entities or an
// entity's neighbourhood; zoom, pan, drag, layouts, a legend that filters by type, relation labels that
// declutter themselves; the detail panel curates (rename, retype, merge, delete, relations) with confirmation.
"use strict";

import { $, changed, colour, el, json, post } from "./api.js";

const state = { cy: null, selected: null, ticket: 0, search: 0, hidden: new Set(), opened: false };

function status(text, error = false) {
  $("explore-status").textContent = text;
  $("explore-status").className = error ? "status error" : "status";
}

// The page's colours (light or dark, as the system asks), for what the canvas draws itself.
const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function graph() {
  if (state.cy) return state.cy;
  const ink = css("--ink") || "#1f2933", muted = css("--muted") || "#616e7c", surface = css("--surface") || "#fff";
  state.cy = cytoscape({  // eslint-disable-line no-undef -- the vendored script's global
    container: $("kg"),
    minZoom: 0.05,
    maxZoom: 6,
    // one wheel notch zoomed about 4% by default, so a graph took a dozen notches to get anywhere
    wheelSensitivity: 3,
    style: [
      { selector: "node", style: {
        "background-color": "data(colour)", label: "data(name)", "font-size": 10, color: ink,
        "text-valign": "bottom", "text-margin-y": 3, width: "data(size)", height: "data(size)",
        "min-zoomed-font-size": 7, "text-wrap": "ellipsis", "text-max-width": 140,
        "border-width": 1, "border-color": surface } },
      { selector: "node.selected", style: { "border-width": 4, "border-color": "#d62728" } },
      { selector: "node.type-hidden", style: { display: "none" } },
      { selector: "edge", style: {
        width: "mapData(weight, 0, 10, 1, 4)", "line-color": "#9aa5b1", "curve-style": "bezier",
        "target-arrow-shape": "triangle", "target-arrow-color": "#9aa5b1", "arrow-scale": 0.7,
        label: "data(type)", "font-size": 8, color: muted, "text-rotation": "autorotate",
        // declutter: a label is drawn only when it would be readable at this zoom, on a band of the background
        "min-zoomed-font-size": 9, "text-background-color": surface, "text-background-opacity": 0.8,
        "text-background-padding": 1 } },
      { selector: "edge.no-label", style: { label: "" } },
    ],
  });
  state.cy.on("tap", "node", (event) => openEntity(event.target.id(), true));
  window.graphwrightExplorer = state.cy;  // for a test or the console: cy.zoom(), cy.nodes()...
  return state.cy;
}

function nodeData(node) {
  return { group: "nodes", data: { id: node.id, name: node.name, type: node.type, degree: node.degree || 0,
    colour: colour(node.type), size: 14 + Math.min(26, 3 * Math.sqrt(node.degree || 0)) } };
}

function edgeData(edge) {
  return { group: "edges", data: { id: `${edge.source}|${edge.type}|${edge.target}`, source: edge.source,
    target: edge.target, type: edge.type, weight: edge.weight || 1 } };
}

// Add nodes and edges (edges whose ends are both drawn), then lay out, keep the type filter, fit.
function put(nodes, edges, replace) {
  const cy = graph();
  cy.batch(() => {
    if (replace) cy.elements().remove();
    for (const node of nodes) {
      const known = cy.getElementById(node.id);
      if (known.nonempty()) known.data({ name: node.name, type: node.type, colour: colour(node.type) });
      else cy.add(nodeData(node));
    }
    for (const edge of edges) {
      if (cy.getElementById(edge.source).nonempty() && cy.getElementById(edge.target).nonempty()
          && cy.getElementById(`${edge.source}|${edge.type}|${edge.target}`).empty()) cy.add(edgeData(edge));
    }
  });
  applyFilters();
  runLayout();
  legend();
}

function runLayout() {
  const cy = graph();
  const name = $("kg-layout").value;
  const options = { name, animate: false, fit: true, padding: 30 };
  if (name === "concentric") Object.assign(options, { concentric: (n) => n.data("degree"), levelWidth: () => 2 });
  if (name === "breadthfirst" && state.selected) Object.assign(options, { roots: `#${CSS.escape(state.selected)}` });
  // spread enough that names do not overlap: labels sit under nodes and are up to 140 px wide
  if (name === "cose") {
    Object.assign(options, { nodeRepulsion: () => 60000, idealEdgeLength: () => 110, nodeOverlap: 40,
      componentSpacing: 80, numIter: 1000 });
  }
  cy.elements(":visible").layout(options).run();
}

function applyFilters() {
  const cy = graph();
  cy.nodes().forEach((n) => n.toggleClass("type-hidden", state.hidden.has(n.data("type"))));
  cy.edges().toggleClass("no-label", !$("kg-labels").checked);
  cy.nodes(".selected").removeClass("selected");
  if (state.selected) cy.getElementById(state.selected).addClass("selected");
}

// The legend: each type drawn, with its colour and count; unticking one hides its entities.
function legend() {
  const counts = new Map();
  graph().nodes().forEach((n) => counts.set(n.data("type"), (counts.get(n.data("type")) || 0) + 1));
  $("kg-legend").replaceChildren(...[...counts.entries()].sort((a, b) => b[1] - a[1]).map(([type, n]) => {
    const label = el("label", undefined, "legend-item");
    const box = el("input"); box.type = "checkbox"; box.checked = !state.hidden.has(type); box.dataset.type = type;
    box.addEventListener("change", () => {
      if (box.checked) state.hidden.delete(type); else state.hidden.add(type);
      applyFilters();
    });
    const swatch = el("i", undefined, "swatch"); swatch.style.background = colour(type); swatch.dataset.type = type;
    label.append(box, swatch, el("span", `${type.toLowerCase()} (${n})`));
    return label;
  }));
}

async function overview() {
  status("loading the most connected entities…");
  const limit = Number($("kg-limit").value) || 150, minDegree = Number($("kg-min-degree").value) || 0;
  const ticket = ++state.ticket;  // the last view asked for wins, whichever answer comes first
  try {
    const data = await json(`/v1/graph/overview?limit=${limit}&min_degree=${minDegree}`);
    if (ticket !== state.ticket) return;
    state.selected = null;
    put(data.nodes, data.edges, true);
    status(`${data.nodes.length} entities, ${data.edges.length} relations among them`);
  } catch (error) { status(error.message, true); }
}

async function findEntities(event) {
  if (event) event.preventDefault();
  const q = $("entity-q").value.trim();
  const ticket = ++state.search;
  try {
    const hits = await json(`/v1/graph/entities?q=${encodeURIComponent(q)}&limit=12`);
    if (ticket !== state.search) return;  // a later search was made meanwhile
    $("entity-hits").replaceChildren(...hits.map((hit) => {
      const button = el("button", `${hit.name} · ${hit.type.toLowerCase()} · ${hit.degree}`);
      button.type = "button";
      button.dataset.id = hit.id;
      button.addEventListener("click", () => openEntity(hit.id, false));
      return button;
    }));
    status(hits.length ? "" : "no entity has that in its name");
  } catch (error) { status(error.message, true); }
}

// Open an entity: its neighbourhood replaces the drawing (or joins it: `expand`), its details show.
export async function openEntity(id, expand) {
  const ticket = ++state.ticket;  // a slower earlier answer must not replace a later one
  try {
    const data = await json(`/v1/graph/neighbourhood/${encodeURIComponent(id)}?limit=40`);
    if (ticket !== state.ticket) return;
    state.selected = id;
    showDetail(data);  // first: the detail pane narrows the canvas, and the layout must fit the new size
    put([data.center, ...data.nodes], data.edges, !expand);
  } catch (error) { status(error.message, true); }
}

function showDetail(data) {
  const names = new Map([[data.center.id, data.center.name], ...data.nodes.map((n) => [n.id, n.name])]);
  $("entity-detail").hidden = false;
  $("entity-detail").parentElement.classList.add("with-detail");
  graph().resize();
  $("entity-detail").dataset.id = data.center.id;
  $("detail-name").textContent = data.center.name;
  $("detail-type").textContent = data.center.type;
  $("detail-type").style.background = colour(data.center.type);
  $("detail-aliases").textContent = data.aliases.length ? `also: ${data.aliases.join(", ")}` : "";
  $("detail-description").textContent = data.description;
  $("description-editor").hidden = true;
  $("detail-passages").replaceChildren();
  $("merge-target").hidden = true;
  $("do-merge").disabled = true;
  $("detail-relations").replaceChildren(...data.edges.map((e) => {
    const item = el("li");
    item.append(el("span", `${names.get(e.source)} -[${e.type}]-> ${names.get(e.target)}`));
    const retype = el("button", "retype", "quiet"); retype.type = "button";
    retype.title = "give this relation the type typed in the box above";
    retype.addEventListener("click", () => curate("relation-retype",
      { source: e.source, type: e.type, target: e.target, new_type: $("curate-value").value.trim() }, data.center.id));
    const remove = el("button", "delete", "danger"); remove.type = "button";
    remove.addEventListener("click", () => {
      if (confirm(`Delete the relation ${names.get(e.source)} -[${e.type}]-> ${names.get(e.target)}? (Undo can restore it.)`)) {
        curate("relation-delete", { source: e.source, type: e.type, target: e.target }, data.center.id);
      }
    });
    item.append(retype, remove);
    if (e.evidence.length) item.append(el("div", e.evidence[0], "meta"));
    return item;
  }));
}

function hideDetail() {
  $("entity-detail").hidden = true;
  $("entity-detail").parentElement.classList.remove("with-detail");
  graph().resize();
}

async function showEntityPassages() {
  const id = $("entity-detail").dataset.id;
  try {
    const rows = await json(`/v1/graph/passages/${encodeURIComponent(id)}?limit=5`);
    $("detail-passages").replaceChildren(...rows.map((row) => {
      const item = el("li");
      item.append(el("div", `${row.title || row.document_id} · ${row.chunk_id}`, "meta"));
      item.append(el("div", row.text.length > 500 ? row.text.slice(0, 500) + "…" : row.text));
      return item;
    }));
  } catch (error) { status(error.message, true); }
}

// One hand change; then the history, the counts, the hit list and the entity that is left are shown again.
async function curate(op, body, reopen) {
  status("changing…");
  try {
    const change = await post(`/v1/curation/${op}`, body);
    status(`${change.id}: ${change.summary}`);
    await loadHistory();
    changed();
    if (op === "merge" || op === "delete") {
      graph().getElementById(op === "merge" ? body.source : body.entity).remove();
      await findEntities();  // a merged-away or deleted entity leaves the hit list
    }
    if (op === "delete") { hideDetail(); state.selected = null; }
    else if (reopen) await openEntity(reopen, true);
    return change;
  } catch (error) { status(error.message, true); return null; }
}

const selectedName = () => $("detail-name").textContent;

async function findMergeTargets() {
  const source = $("entity-detail").dataset.id, q = $("merge-q").value.trim();
  if (!q) { status("type the name of the entity to merge into", true); return; }
  try {
    const hits = (await json(`/v1/graph/entities?q=${encodeURIComponent(q)}&limit=10`)).filter((h) => h.id !== source);
    $("merge-target").replaceChildren(...hits.map((h) => {
      const option = el("option", `${h.name} · ${h.type.toLowerCase()} · ${h.degree} relations`);
      option.value = h.id;
      return option;
    }));
    $("merge-target").hidden = !hits.length;
    $("do-merge").disabled = !hits.length;
    status(hits.length ? `${hits.length} candidates: pick one, then Merge` : `no other entity is named like ${q}`, !hits.length);
  } catch (error) { status(error.message, true); }
}

function mergeInto() {
  const source = $("entity-detail").dataset.id, select = $("merge-target");
  const target = select.value, label = select.selectedOptions[0]?.textContent || target;
  if (!target) return;
  if (!confirm(`Merge "${selectedName()}" into ${label}? Its relations, mentions and names move there. (Undo can split them again.)`)) return;
  curate("merge", { source, target }, target);
}

function deleteEntity() {
  const id = $("entity-detail").dataset.id;
  if (!confirm(`Delete "${selectedName()}" and its relations? (Undo can restore it.)`)) return;
  curate("delete", { entity: id }, null);
}

async function loadHistory() {
  try {
    const changes = await json("/v1/curation/history?limit=10");
    $("history").replaceChildren(...changes.map((c) => el("li", `${c.id} · ${c.summary} · ${c.who}`, c.status === "undone" ? "undone" : "")));
    // what Undo undoes: the newest change still applied that is not itself an undo (as the server picks)
    const last = changes.find((c) => c.status === "applied" && c.op !== "undo");
    $("undo-last").dataset.change = last?.id || "";
    $("undo-last").dataset.summary = last?.summary || "";
  } catch (_) { /* a read key without history still explores */ }
}

async function undoLast() {
  const { change: id, summary } = $("undo-last").dataset;
  if (!id) { status("nothing to undo"); return; }
  if (!confirm(`Undo ${id}: ${summary}?`)) return;
  const change = await curate("undo", { change: id }, null);  // exactly the change the question named
  if (change && !$("entity-detail").hidden) {
    const hits = await json(`/v1/graph/entities?q=${encodeURIComponent(selectedName())}&limit=1`);
    if (hits.length) await openEntity(hits[0].id, false);
  }
}

function editDescription() {
  $("description-text").value = $("detail-description").textContent;
  $("description-editor").hidden = false;
  $("description-text").focus();
}

async function saveDescription() {
  const text = $("description-text").value.trim();
  if (!text) { status("a description needs some text (Delete removes the entity)", true); return; }
  const id = $("entity-detail").dataset.id;
  if (await curate("describe", { entity: id, description: text }, id)) $("description-editor").hidden = true;
}

// Take the open entity off the drawing, with the neighbours left with nothing else drawn to connect to
// (what opening it brought in); the graph itself is not changed.
function prune() {
  const cy = graph(), id = $("entity-detail").dataset.id;
  const node = cy.getElementById(id);
  if (node.empty()) return;
  const orphans = node.neighborhood("node").filter((n) => n.connectedEdges().every((e) => e.connectedNodes().contains(node)));
  cy.remove(node.union(orphans));
  state.selected = null;
  hideDetail();
  legend();
  status(`pruned ${selectedName()}${orphans.length ? ` and ${orphans.length} neighbour(s) only it connected` : ""} from the view`);
}

// Zoom about the middle of the drawing, as the buttons' user expects (the wheel zooms about the pointer).
function zoomBy(factor) {
  const cy = graph();
  cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
}

function fullscreen() {
  const box = $("kg-box");
  if (document.fullscreenElement) document.exitFullscreen(); else box.requestFullscreen?.();
}

export function initExplorer() {
  $("entity-form").addEventListener("submit", findEntities);
  $("kg-overview").addEventListener("click", overview);
  $("kg-layout").addEventListener("change", runLayout);
  $("kg-labels").addEventListener("change", applyFilters);
  // resize first: cytoscape caches the canvas size, and panes opening or closing change it
  $("kg-fit").addEventListener("click", () => { graph().resize(); graph().fit(undefined, 30); });
  $("kg-zoom-in").addEventListener("click", () => zoomBy(1.3));
  $("kg-zoom-out").addEventListener("click", () => zoomBy(1 / 1.3));
  $("kg-fullscreen").addEventListener("click", fullscreen);
  document.addEventListener("fullscreenchange", () => setTimeout(() => { graph().resize(); graph().fit(undefined, 30); }, 50));
  $("kg-clear").addEventListener("click", () => { graph().elements().remove(); legend(); hideDetail(); });
  $("show-passages").addEventListener("click", showEntityPassages);
  $("do-rename").addEventListener("click", () => curate("rename",
    { entity: $("entity-detail").dataset.id, name: $("curate-value").value.trim() }, $("entity-detail").dataset.id));
  $("do-retype").addEventListener("click", () => curate("retype",
    { entity: $("entity-detail").dataset.id, type: $("curate-value").value.trim() }, $("entity-detail").dataset.id));
  $("merge-find").addEventListener("click", findMergeTargets);
  $("merge-q").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); findMergeTargets(); } });
  $("do-merge").addEventListener("click", mergeInto);
  $("do-delete").addEventListener("click", deleteEntity);
  $("undo-last").addEventListener("click", undoLast);
  $("edit-description").addEventListener("click", editDescription);
  $("save-description").addEventListener("click", saveDescription);
  $("cancel-description").addEventListener("click", () => { $("description-editor").hidden = true; });
  $("kg-prune").addEventListener("click", prune);
  return {
    // The first look at the tab shows the whole graph's most connected entities, not an empty panel.
    shown() {
      graph().resize();
      if (!state.opened || graph().elements().empty()) { state.opened = true; overview(); findEntities(); loadHistory(); }
    },
    refresh() { if (state.opened) loadHistory(); },
  };
}
