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

$("ask-form").addEventListener("submit", ask);
$("new-thread").addEventListener("click", newThread);
$("upload-form").addEventListener("submit", upload);
$("save-key").addEventListener("click", () => {
  localStorage.setItem(KEY, $("api-key").value.trim());
  $("key-box").hidden = true;
  loadModes(); loadStats(); loadDocuments();
});
loadModes(); loadStats(); loadDocuments();
