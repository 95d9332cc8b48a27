// The Documents tab: upload and watch the ingest job; a table of every document, interrupted ingest and failed
// file (with its reason) that searches, filters by status, sorts by a column's header, pages and deletes
// several at once; the recent ingest jobs.
"use strict";

import { $, api, changed, el, json, post } from "./api.js";

const STATUSES = ["processed", "incomplete", "interrupted", "failed"];
const table = { offset: 0, sort: "date", descending: true, total: 0, ticket: 0, timer: null };

function info(text, error = false) {
  $("doc-info").textContent = text;
  $("doc-info").className = error ? "status error" : "status";
}

function selectedIds() {
  return [...document.querySelectorAll("#documents input[type=checkbox]:checked")].map((box) => box.dataset.id);
}

function updateSelection() {
  const n = selectedIds().length;
  $("doc-delete").disabled = n === 0;
  $("doc-delete").textContent = n ? `Delete selected (${n})…` : "Delete selected";
}

export async function loadDocuments() {
  const ticket = ++table.ticket;
  const limit = Number($("doc-limit").value);
  const params = new URLSearchParams({ offset: table.offset, limit, sort: table.sort, descending: table.descending });
  if ($("doc-search").value.trim()) params.set("search", $("doc-search").value.trim());
  if ($("doc-status").value) params.set("status", $("doc-status").value);
  try {
    const page = await json(`/v1/documents/table?${params}`);
    if (ticket !== table.ticket) return;
    table.total = page.total;
    showCounts(page.counts);
    $("documents").replaceChildren(...page.documents.map(row));
    $("doc-all").checked = false;
    updateSelection();
    const end = table.offset + page.documents.length;
    $("doc-page").textContent = page.total ? `${table.offset + 1}–${end} of ${page.total}` : "no documents";
    $("doc-prev").disabled = table.offset === 0;
    $("doc-next").disabled = end >= page.total;
    document.querySelectorAll("#doc-table th[data-sort]").forEach((th) => {
      th.classList.toggle("sorted", th.dataset.sort === table.sort);
      th.dataset.direction = th.dataset.sort === table.sort ? (table.descending ? "↓" : "↑") : "";
      th.setAttribute("aria-sort", th.dataset.sort === table.sort ? (table.descending ? "descending" : "ascending") : "none");
    });
    info("");
  } catch (error) { info(error.message, true); }
}

function showCounts(counts) {
  const select = $("doc-status"), chosen = select.value;
  const all = Object.values(counts).reduce((a, b) => a + b, 0);
  select.replaceChildren(el("option", `all (${all})`), ...STATUSES.map((s) => el("option", `${s} (${counts[s] || 0})`)));
  select.options[0].value = "";
  STATUSES.forEach((s, i) => { select.options[i + 1].value = s; });
  select.value = chosen;
}

function row(doc) {
  const tr = el("tr", undefined, `status-${doc.status}`);
  const pick = el("td");
  const box = el("input"); box.type = "checkbox"; box.dataset.id = doc.id;  // failed rows are deleted too
  box.setAttribute("aria-label", `select ${doc.id}`);
  box.addEventListener("change", updateSelection);
  pick.append(box);
  const name = el("td");
  name.append(el("div", doc.title || doc.id, "doc-title"));
  if (doc.title && doc.title !== doc.id) name.append(el("div", doc.id, "meta"));
  const badge = el("span", doc.status, `badge status-badge ${doc.status}`);
  const statusCell = el("td"); statusCell.append(badge);
  const date = (doc.ingested_at || "").slice(0, 16).replace("T", " ");
  const source = el("td", undefined, doc.error ? "reason" : "meta");
  source.textContent = doc.error || doc.source || "";
  if (doc.status === "failed" || doc.status === "interrupted") {  // again, from the upload the server kept
    const again = el("button", "retry", "quiet retry"); again.type = "button";
    again.setAttribute("aria-label", `retry ${doc.id}`);
    again.addEventListener("click", () => retry(doc.id, again));
    source.append(" ", again);
  }
  tr.append(pick, name, statusCell, el("td", doc.type), el("td", (doc.languages || []).join(", ")),
    el("td", String(doc.chunks ?? "")), el("td", date), source);
  return tr;
}

// A job started from a row's button: said while it starts, followed to its end (the tables refresh then);
// on a refusal (nothing kept to retry, a read key) the reason is shown and the button is back.
async function jobFromRow(button, said, start) {
  button.disabled = true;
  $("job").hidden = false;
  $("job-status").className = "";
  $("job-status").textContent = said;
  $("job-stages").replaceChildren();
  try {
    await follow(await start());
  } catch (error) {
    $("job-status").textContent = error.message;
    $("job-status").className = "error";
    button.disabled = false;
  }
}

const retry = (id, button) => jobFromRow(button, `retrying ${id}…`, () => post("/v1/documents/retry", { id }));

async function follow(job) {
  while (job.status === "queued" || job.status === "running") {
    showJob(job);
    await new Promise((resolve) => setTimeout(resolve, 400));
    job = await json(`/v1/jobs/${job.id}`);
  }
  showJob(job);
  changed();
}

async function deleteSelected() {
  const ids = selectedIds();
  if (!ids.length) return;
  const shown = ids.slice(0, 5).join(", ") + (ids.length > 5 ? ` and ${ids.length - 5} more` : "");
  if (!confirm(`Delete ${ids.length} row(s): a document goes with its chunks and its share of the graph, a failed ` +
    `file with the copy kept to retry it: ${shown}?`)) return;
  let failed = 0;
  for (const id of ids) {
    try { await api(`/v1/documents/${encodeURIComponent(id)}`, { method: "DELETE" }); } catch (_) { failed += 1; }
  }
  info(failed ? `${failed} of ${ids.length} could not be deleted` : `deleted ${ids.length}`, failed > 0);
  changed();
}

async function upload(event) {
  event.preventDefault();
  await uploadFiles($("files").files);
}

// Files dropped on the tab: the same upload as the form's.
function dropped(event) {
  event.preventDefault();
  $("panel-documents").classList.remove("dragging");
  const files = event.dataTransfer?.files;
  if (files && files.length) uploadFiles(files);
}

async function uploadFiles(files) {
  if (!files.length) return;
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  $("upload").disabled = true;
  $("job").hidden = false;
  $("job-status").textContent = "uploading…";
  $("job-stages").replaceChildren();
  try {
    await follow(await json("/v1/documents", { method: "POST", body: form }));
    $("files").value = "";
  } catch (error) {
    $("job-status").textContent = error.message;
    $("job-status").className = "error";
  } finally {
    $("upload").disabled = false;
  }
}

// The sources the workspace keeps in step with, each with a "sync now" that runs as a job.
async function loadSources() {
  let sources;
  try { sources = await json("/v1/sources"); } catch (_) { return; }
  $("sources-box").hidden = sources.length === 0;
  $("sources").replaceChildren(...sources.map((source) => {
    const tr = el("tr", undefined, source.error ? "status-failed" : "");
    const c = source.counts || {};
    const last = source.error || `+${c.added || 0} added, ~${c.changed || 0} changed, −${c.removed || 0} removed` +
      (source.failed ? `, ${source.failed} failed` : "");
    const now = el("button", "sync now", "quiet sync-now"); now.type = "button";
    now.setAttribute("aria-label", `sync ${source.id} now`);
    now.addEventListener("click", () => syncNow(source.id, now));
    const action = el("td"); action.append(now);
    tr.append(el("td", source.id, "doc-title"), el("td", source.kind), el("td", String(source.documents)),
      el("td", (source.last_sync || "never").slice(0, 19).replace("T", " ")), el("td", last, source.error ? "reason" : "meta"),
      action);
    return tr;
  }));
}

const syncNow = (id, button) => jobFromRow(button, `syncing ${id}…`, () => post("/v1/sources/sync", { id }));

function jobLine(job) {
  let text = `job ${job.id.slice(0, 8)}: ${job.status}`;
  if (job.kind === "sync" && job.status === "succeeded" && job.result) {
    const r = job.result;
    return `${text} · ${r.source}: ${r.added.length} added, ${r.changed.length} changed, ${r.removed.length} removed, ` +
      `${r.unchanged} unchanged` + (r.failures.length ? ` · ${r.failures.length} failed: ` +
      r.failures.map((f) => `${f.source}: ${f.error}`).join("; ") : "");
  }
  if (job.status === "succeeded" && job.result) {
    const r = job.result;
    text += ` · ${r.documents_written} written, ${r.documents_unchanged} unchanged, ${r.chunks_written} chunks, ` +
      `${r.entities_written} entities` + (r.failures.length ? ` · ${r.failures.length} failed: ` +
      r.failures.map((f) => `${f.source.split("/").pop()}: ${f.error}`).join("; ") : "") +
      (r.skipped.length ? ` · skipped (type not read): ${r.skipped.map((p) => p.split("/").pop()).join(", ")}` : "");
  }
  if (job.error) text += ` · ${job.error}`;
  return text;
}

function showJob(job) {
  $("job-status").textContent = jobLine(job);
  $("job-status").className = job.status === "failed" ? "error" : "";
  $("job-stages").replaceChildren(...Object.entries(job.progress).map(([stage, p]) => {
    const line = el("div", undefined, "stage");
    line.append(el("span", stage));
    const bar = el("progress");
    bar.max = Math.max(p.total, 1); bar.value = p.done;
    line.append(bar, el("span", `${p.done}/${p.total} ${p.detail || ""}`));
    return line;
  }));
}

async function loadJobs() {
  try {
    const jobs = await json("/v1/jobs?limit=10");
    $("jobs").replaceChildren(...jobs.map((job) => el("li", jobLine(job), `job-${job.status}`)));
  } catch (_) { /* a read key sees no jobs */ }
}

function sortBy(th) {
  const key = th.dataset.sort;
  table.descending = table.sort === key ? !table.descending : key === "date" || key === "chunks";
  table.sort = key;
  table.offset = 0;
  loadDocuments();
}

export function initDocuments() {
  $("upload-form").addEventListener("submit", upload);
  const panel = $("panel-documents");
  panel.addEventListener("dragover", (e) => { e.preventDefault(); panel.classList.add("dragging"); });
  panel.addEventListener("dragleave", (e) => { if (!panel.contains(e.relatedTarget)) panel.classList.remove("dragging"); });
  panel.addEventListener("drop", dropped);
  $("doc-search").addEventListener("input", () => {
    clearTimeout(table.timer);
    table.timer = setTimeout(() => { table.offset = 0; loadDocuments(); }, 250);
  });
  $("doc-status").addEventListener("change", () => { table.offset = 0; loadDocuments(); });
  $("doc-limit").addEventListener("change", () => { table.offset = 0; loadDocuments(); });
  $("doc-prev").addEventListener("click", () => { table.offset = Math.max(0, table.offset - Number($("doc-limit").value)); loadDocuments(); });
  $("doc-next").addEventListener("click", () => { table.offset += Number($("doc-limit").value); loadDocuments(); });
  $("doc-all").addEventListener("change", () => {
    document.querySelectorAll("#documents input[type=checkbox]").forEach((box) => { box.checked = $("doc-all").checked; });
    updateSelection();
  });
  $("doc-delete").addEventListener("click", deleteSelected);
  document.querySelectorAll("#doc-table th[data-sort]").forEach((th) => {
    th.tabIndex = 0;
    th.addEventListener("click", () => sortBy(th));
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") sortBy(th); });
  });
  return { refresh() { loadDocuments(); loadJobs(); loadSources(); } };
}
