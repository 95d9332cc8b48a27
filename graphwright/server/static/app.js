// graphwright's page: plain JS, no build step, nothing from the network but this server.
// Every text from the graph is set with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const KEY = "graphwright-api-key";
// The conversation so far, sent with each question as `history`, so a follow-up ("who built it?") is
// searched with what it refers to. Kept in the page only; "New conversation" forgets it.
const thread = [];
const HISTORY_TURNS = 12;

function headers(extra = {}) {
  const key = localStorage.getItem(KEY);
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

// The page opened at /w/<name>/ works in that workspace: every call goes under the same prefix.
const WORKSPACE_BASE = (location.pathname.match(/^\/w\/[a-z0-9][a-z0-9_-]*(?=\/)/) || [""])[0];

async function api(path, options = {}) {
  const response = await fetch(WORKSPACE_BASE + path, { ...options, headers: headers(options.headers || {}) });
  if (response.status === 401) $("key-box").hidden = false;
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try { message = (await response.json()).error.message || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "status error" : "status";
}

async function loadModes() {
  const names = ["hybrid"];  // until the server says which modes it has (/v1/models, from the registry)
  try {
    const data = await (await api("/v1/models")).json();
    names.splice(0, names.length, ...data.data.map((m) => m.id).filter((id) => id.startsWith("graphwright-"))
      .map((id) => id.slice("graphwright-".length)));
  } catch (_) { /* keep the defaults */ }
  const select = $("mode");
  select.replaceChildren(...names.map((name) => el("option", name)));
  select.value = "hybrid";
}

async function loadStats() {
  try {
    const stats = await (await api("/v1/stats")).json();
    const c = stats.counts;
    const levels = Object.keys(stats.community_levels || {}).length;
    $("stats").textContent = `${c.documents} documents · ${c.chunks} chunks · ${c.entities} entities · ` +
      `${c.relations} relations · ${c.communities ?? 0} communities` + (levels ? ` (${levels} levels)` : "");
  } catch (error) {
    $("stats").textContent = `stats unavailable: ${error.message}`;
  }
}

async function loadDocuments() {
  try {
    const docs = await (await api("/v1/documents?limit=200")).json();
    $("documents").replaceChildren(...docs.map((doc) => {
      const item = el("li", `${doc.title || doc.id} `);
      item.append(el("span", `(${doc.chunks ?? "?"} chunks)`, "meta"));
      const remove = el("button", "×");
      remove.title = `delete ${doc.id}`;
      remove.addEventListener("click", async () => {
        if (!confirm(`Delete ${doc.id}?`)) return;
        try { await api(`/v1/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" }); } catch (e) { alert(e.message); }
        loadDocuments(); loadStats();
      });
      item.append(remove);
      return item;
    }));
  } catch (_) { /* the stats line says what is wrong */ }
}

function showPassages(chunks, cited) {
  $("passages").replaceChildren(...chunks.map((chunk) => {
    const item = el("li", undefined, cited.has(chunk.chunk_id) ? "cited" : "");
    const where = chunk.pages ? ` p.${chunk.pages}` : (chunk.section ? ` · ${chunk.section}` : "");
    item.append(el("div", `${chunk.title || chunk.document_id}${where} · ${chunk.chunk_id} · score ${chunk.score.toFixed(3)}`, "meta"));
    item.append(el("div", chunk.text.length > 600 ? chunk.text.slice(0, 600) + "…" : chunk.text));
    return item;
  }));
}

// Server-sent events from a POST: read the body stream and split it into events.
async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message", data = "";
      for (const line of frame.split("\n")) {
        if (line.startsWith("event: ")) name = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      yield { name, data: JSON.parse(data) };
    }
  }
}

async function ask(event) {
  event.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  $("ask").disabled = true;
  setStatus("searching…");
  $("result").hidden = false;
  $("answer").textContent = "";
  $("answer-kind").textContent = "";
  $("passages").replaceChildren();
  $("followup").hidden = true;
  $("browser").hidden = true;
  $("graph").srcdoc = "";
  const started = performance.now();
  try {
    const response = await api("/v1/search/stream", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        question, mode: $("mode").value, k: Number($("k").value) || 5, history: thread.slice(-HISTORY_TURNS),
      }),
    });
    for await (const { name, data } of events(response)) {
      if (name === "retrieval") {
        showPassages(data.chunks, new Set());
        setStatus("writing the answer…");
      } else if (name === "token") {
        $("answer").textContent += data.text;
      } else if (name === "result") {
        $("answer").textContent = data.answer;
        $("answer-kind").textContent = `${data.mode} · ${data.answer_kind === "generated" ? "LLM answer" : "retrieval (offline)"}`;
        const cited = new Set(data.citations.filter((c) => c.kind === "chunk").map((c) => c.id));
        showPassages(data.chunks, cited);
        $("browser-link").href = data.browser_url;
        $("browser").hidden = false;
        const note = (data.notes || []).find((n) => n.startsWith("follow-up"));
        if (note) { $("followup").textContent = note; $("followup").hidden = false; }
        remember(question, data, note);
        setStatus(`done in ${Math.round(performance.now() - started)} ms`);
        const graph = await api("/v1/answer-graph", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data),
        });
        $("graph").srcdoc = await graph.text();
      } else if (name === "error") {
        throw new Error(data.error.message);
      }
    }
  } catch (error) {
    setStatus(error.message, true);
  } finally {
    $("ask").disabled = false;
  }
}

function remember(question, result, note) {
  thread.push({ role: "user", content: question }, { role: "assistant", content: result.answer });
  const item = el("li");
  item.append(el("div", question, "asked"));
  if (note) item.append(el("div", note, "meta"));
  // Offline the answer is the retrieval: the thread shows its first passage; an LLM answer as it is.
  const top = result.chunks[0];
  const said = result.answer_kind === "generated" || !top ? result.answer : `${top.title || top.document_id}: ${top.text}`;
  item.append(el("div", said.length > 200 ? said.slice(0, 200) + "…" : said, "said"));
  $("thread").append(item);
  $("thread").hidden = false;
  $("new-thread").hidden = false;
  $("question").value = "";
  $("question").placeholder = "Ask a follow-up…";
}

function newThread() {
  thread.length = 0;
  $("thread").replaceChildren();
  $("thread").hidden = true;
  $("new-thread").hidden = true;
  $("result").hidden = true;
  $("question").placeholder = "Ask a question about your documents…";
  $("question").focus();
}

async function upload(event) {
  event.preventDefault();
  const files = $("files").files;
  if (!files.length) return;
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  $("upload").disabled = true;
  $("job").hidden = false;
  $("job-status").textContent = "uploading…";
  $("job-stages").replaceChildren();
  try {
    let job = await (await api("/v1/documents", { method: "POST", body: form })).json();
    while (job.status === "queued" || job.status === "running") {
      showJob(job);
      await new Promise((resolve) => setTimeout(resolve, 400));
      job = await (await api(`/v1/jobs/${job.id}`)).json();
    }
    showJob(job);
    loadStats(); loadDocuments();
  } catch (error) {
    $("job-status").textContent = error.message;
    $("job-status").className = "error";
  } finally {
    $("upload").disabled = false;
  }
}

function showJob(job) {
  let text = `job ${job.id.slice(0, 8)}: ${job.status}`;
  if (job.status === "succeeded" && job.result) {
    const r = job.result;
    text += ` · ${r.documents_written} written, ${r.documents_unchanged} unchanged, ${r.chunks_written} chunks, ` +
      `${r.entities_written} entities` + (r.failures.length ? ` · ${r.failures.length} failed: ` +
      r.failures.map((f) => `${f.source.split("/").pop()}: ${f.error}`).join("; ") : "") +
      (r.skipped.length ? ` · skipped (type not read): ${r.skipped.map((p) => p.split("/").pop()).join(", ")}` : "");
  }
  if (job.error) text += ` · ${job.error}`;
  $("job-status").textContent = text;
  $("job-status").className = job.status === "failed" ? "error" : "";
  $("job-stages").replaceChildren(...Object.entries(job.progress).map(([stage, p]) => {
    const row = el("div", undefined, "stage");
    row.append(el("span", stage));
    const bar = el("progress");
    bar.max = Math.max(p.total, 1); bar.value = p.done;
    row.append(bar, el("span", `${p.done}/${p.total} ${p.detail || ""}`));
    return row;
  }));
}

// --- the knowledge-graph explorer: find an entity, see its neighbourhood, expand, curate -------------------
const SVG_NS = "http://www.w3.org/2000/svg";
const VIEW = { width: 800, height: 520 };
const TYPE_COLOURS = { PERSON: "#2f6fb5", ORGANIZATION: "#e07b39", LOCATION: "#3a9d5d", EVENT: "#9467bd",
  PRODUCT: "#c43c7a", TECHNOLOGY: "#17becf", CONCEPT: "#8c8c8c" };
const kg = { nodes: new Map(), edges: new Map(), selected: null, ticket: 0, search: 0 };

function colour(type) { return TYPE_COLOURS[type] || "#b8860b"; }

function exploreStatus(text, error = false) {
  $("explore-status").textContent = text;
  $("explore-status").className = error ? "status error" : "status";
}

async function findEntities(event) {
  if (event) event.preventDefault();
  const q = $("entity-q").value.trim();
  const ticket = ++kg.search;
  try {
    const hits = await (await api(`/v1/graph/entities?q=${encodeURIComponent(q)}&limit=12`)).json();
    if (ticket !== kg.search) return;  // a later search was made meanwhile
    $("entity-hits").replaceChildren(...hits.map((hit) => {
      const button = el("button", `${hit.name} · ${hit.type.toLowerCase()} · ${hit.degree}`);
      button.type = "button";
      button.dataset.id = hit.id;
      button.addEventListener("click", () => openEntity(hit.id, false));
      return button;
    }));
    exploreStatus(hits.length ? "" : "no entity has that in its name");
    // The first look shows the most connected entity's neighbourhood, not an empty panel.
    if (!q && hits.length && kg.ticket === 0) openEntity(hits[0].id, false);  // unless one was opened
  } catch (error) { exploreStatus(error.message, true); }
}

// Open an entity: its neighbourhood replaces the drawing (or joins it: `expand`), its details show.
async function openEntity(id, expand) {
  const ticket = ++kg.ticket;  // a slower earlier answer must not replace a later one
  try {
    const data = await (await api(`/v1/graph/neighbourhood/${encodeURIComponent(id)}?limit=30`)).json();
    if (ticket !== kg.ticket) return;
    if (!expand) { kg.nodes.clear(); kg.edges.clear(); }
    const origin = kg.nodes.get(id) || { x: VIEW.width / 2, y: VIEW.height / 2 };
    const put = (node) => {
      const known = kg.nodes.get(node.id);
      if (known) { Object.assign(known, { name: node.name, type: node.type }); return; }
      const angle = Math.random() * 2 * Math.PI;
      kg.nodes.set(node.id, { ...node, x: origin.x + 60 * Math.cos(angle), y: origin.y + 60 * Math.sin(angle) });
    };
    put(data.center);
    kg.nodes.get(id).x = origin.x; kg.nodes.get(id).y = origin.y;
    data.nodes.forEach(put);
    for (const edge of data.edges) kg.edges.set(`${edge.source}|${edge.type}|${edge.target}`, edge);
    kg.selected = id;
    layout(); draw(); showDetail(data);
  } catch (error) { exploreStatus(error.message, true); }
}

// A few hundred steps of a small force layout: nodes repel, relations pull, all stay in the view.
function layout() {
  const nodes = [...kg.nodes.values()];
  const edges = [...kg.edges.values()].filter((e) => kg.nodes.has(e.source) && kg.nodes.has(e.target));
  for (let step = 0; step < 300; step++) {
    const heat = 1 - step / 300;
    for (const a of nodes) { a.dx = (VIEW.width / 2 - a.x) * 0.01; a.dy = (VIEW.height / 2 - a.y) * 0.01; }
    for (let i = 0; i < nodes.length; i++) for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i], b = nodes[j];
      let dx = a.x - b.x, dy = a.y - b.y;
      const d2 = Math.max(dx * dx + dy * dy, 25), force = 2500 / d2, d = Math.sqrt(d2);
      dx /= d; dy /= d;
      a.dx += dx * force; a.dy += dy * force; b.dx -= dx * force; b.dy -= dy * force;
    }
    for (const e of edges) {
      const a = kg.nodes.get(e.source), b = kg.nodes.get(e.target);
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.max(Math.hypot(dx, dy), 1), pull = (d - 110) * 0.05;
      a.dx += dx / d * pull; a.dy += dy / d * pull; b.dx -= dx / d * pull; b.dy -= dy / d * pull;
    }
    for (const a of nodes) {
      a.x = Math.min(VIEW.width - 40, Math.max(40, a.x + Math.max(-20, Math.min(20, a.dx)) * heat));
      a.y = Math.min(VIEW.height - 20, Math.max(20, a.y + Math.max(-20, Math.min(20, a.dy)) * heat));
    }
  }
  // Fill the panel: scale the drawing to the view (labels run right of their node, so leave room there).
  if (nodes.length < 2) return;
  const xs = nodes.map((n) => n.x), ys = nodes.map((n) => n.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = Math.min(3, (VIEW.width - 200) / Math.max(x1 - x0, 1), (VIEW.height - 60) / Math.max(y1 - y0, 1));
  for (const n of nodes) { n.x = 40 + (n.x - x0) * scale; n.y = 30 + (n.y - y0) * scale; }
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function draw() {
  const svg = $("kg");
  svg.replaceChildren();
  for (const e of kg.edges.values()) {
    const a = kg.nodes.get(e.source), b = kg.nodes.get(e.target);
    if (!a || !b) continue;
    const line = svgEl("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: "edge" });
    const tip = svgEl("title", {}); tip.textContent = `${a.name} -[${e.type}]-> ${b.name}`; line.append(tip);
    const label = svgEl("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 3, class: "edge-label" });
    label.textContent = e.type;
    svg.append(line, label);
  }
  for (const node of kg.nodes.values()) {
    const group = svgEl("g", { class: node.id === kg.selected ? "node selected" : "node", "data-id": node.id });
    const circle = svgEl("circle", { cx: node.x, cy: node.y, r: node.id === kg.selected ? 11 : 8, fill: colour(node.type) });
    const tip = svgEl("title", {}); tip.textContent = `${node.name} (${node.type.toLowerCase()})`; circle.append(tip);
    const label = svgEl("text", { x: node.x + 12, y: node.y + 4 });
    label.textContent = node.name.length > 28 ? node.name.slice(0, 27) + "…" : node.name;
    group.append(circle, label);
    group.addEventListener("click", () => openEntity(node.id, true));
    svg.append(group);
  }
}

function showDetail(data) {
  const names = new Map([[data.center.id, data.center.name], ...data.nodes.map((n) => [n.id, n.name])]);
  $("entity-detail").hidden = false;
  $("entity-detail").dataset.id = data.center.id;
  $("detail-name").textContent = data.center.name;
  $("detail-type").textContent = data.center.type;
  $("detail-aliases").textContent = data.aliases.length ? `also: ${data.aliases.join(", ")}` : "";
  $("detail-description").textContent = data.description;
  $("detail-passages").replaceChildren();
  $("detail-relations").replaceChildren(...data.edges.map((e) => {
    const item = el("li");
    item.append(el("span", `${names.get(e.source)} -[${e.type}]-> ${names.get(e.target)}`));
    const retype = el("button", "retype", "quiet"); retype.type = "button";
    retype.title = "give this relation the type typed in the box above";
    retype.addEventListener("click", () => curate("relation-retype",
      { source: e.source, type: e.type, target: e.target, new_type: $("curate-value").value.trim() }, data.center.id));
    const remove = el("button", "delete", "danger"); remove.type = "button";
    remove.addEventListener("click", () => curate("relation-delete", { source: e.source, type: e.type, target: e.target }, data.center.id));
    item.append(retype, remove);
    if (e.evidence.length) item.append(el("div", e.evidence[0], "meta"));
    return item;
  }));
}

async function showEntityPassages() {
  const id = $("entity-detail").dataset.id;
  try {
    const rows = await (await api(`/v1/graph/passages/${encodeURIComponent(id)}?limit=5`)).json();
    $("detail-passages").replaceChildren(...rows.map((row) => {
      const item = el("li");
      item.append(el("div", `${row.title || row.document_id} · ${row.chunk_id}`, "meta"));
      item.append(el("div", row.text.length > 500 ? row.text.slice(0, 500) + "…" : row.text));
      return item;
    }));
  } catch (error) { exploreStatus(error.message, true); }
}

// One hand change; then the history, the stats and the entity that is left are shown again.
async function curate(op, body, reopen) {
  exploreStatus("changing…");
  try {
    const change = await (await api(`/v1/curation/${op}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    })).json();
    exploreStatus(`${change.id}: ${change.summary}`);
    await loadHistory(); loadStats();
    if (reopen) {
      kg.nodes.delete(op === "merge" ? body.source : "");
      if (op === "delete") { kg.nodes.delete(reopen); $("entity-detail").hidden = true; draw(); }
      else await openEntity(reopen, false);
    }
    return change;
  } catch (error) { exploreStatus(error.message, true); return null; }
}

async function mergeInto() {
  const source = $("entity-detail").dataset.id, name = $("curate-value").value.trim();
  if (!name) { exploreStatus("type the entity to merge into", true); return; }
  const hits = await (await api(`/v1/graph/entities?q=${encodeURIComponent(name)}&limit=1`)).json();
  if (!hits.length) { exploreStatus(`no entity named like ${name}`, true); return; }
  await curate("merge", { source, target: hits[0].id }, hits[0].id);
}

async function loadHistory() {
  try {
    const changes = await (await api("/v1/curation/history?limit=10")).json();
    $("history").replaceChildren(...changes.map((c) => {
      const item = el("li", `${c.id} · ${c.summary} · ${c.who}`, c.status === "undone" ? "undone" : "");
      return item;
    }));
  } catch (_) { /* a read key without history still explores */ }
}

async function undoLast() {
  const change = await curate("undo", {}, null);
  if (change && $("entity-detail").dataset.id) {
    const shown = $("entity-detail").dataset.id;
    const hits = await (await api(`/v1/graph/entities?q=${encodeURIComponent($("detail-name").textContent)}&limit=1`)).json();
    await openEntity(hits.length ? hits[0].id : shown, false);
  }
}

$("entity-form").addEventListener("submit", findEntities);
$("show-passages").addEventListener("click", showEntityPassages);
$("do-rename").addEventListener("click", () => curate("rename",
  { entity: $("entity-detail").dataset.id, name: $("curate-value").value.trim() }, $("entity-detail").dataset.id));
$("do-retype").addEventListener("click", () => curate("retype",
  { entity: $("entity-detail").dataset.id, type: $("curate-value").value.trim() }, $("entity-detail").dataset.id));
$("do-merge").addEventListener("click", mergeInto);
$("do-delete").addEventListener("click", () => curate("delete", { entity: $("entity-detail").dataset.id }, $("entity-detail").dataset.id));
$("undo-last").addEventListener("click", undoLast);

$("ask-form").addEventListener("submit", ask);
$("new-thread").addEventListener("click", newThread);
$("upload-form").addEventListener("submit", upload);
$("save-key").addEventListener("click", () => {
  localStorage.setItem(KEY, $("api-key").value.trim());
  $("key-box").hidden = true;
  loadModes(); loadStats(); loadDocuments(); loadHistory(); findEntities();
});
loadModes(); loadStats(); loadDocuments(); loadHistory(); findEntities();
