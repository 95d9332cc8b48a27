// The Ask tab: a thread of questions (each follow-up sent with the conversation so far), every search option,
// the streamed answer, its cited passages, its graph and the Neo4j Browser link.
"use strict";

import { $, api, el, json } from "./api.js";

const thread = [];  // kept in the page only; "New conversation" forgets it
const HISTORY_TURNS = 12;

function setStatus(text, error = false) {
  $("status").textContent = text;
  $("status").className = error ? "status error" : "status";
}

async function loadModes() {
  const names = ["hybrid"];  // until the server says which modes it has (/v1/models, from the registry)
  try {
    const data = await json("/v1/models");
    names.splice(0, names.length, ...data.data.map((m) => m.id).filter((id) => id.startsWith("graphwright-"))
      .map((id) => id.slice("graphwright-".length)));
  } catch (_) { /* keep the defaults */ }
  $("mode").replaceChildren(...names.map((name) => el("option", name)));
  $("mode").value = "hybrid";
}

function showPassages(chunks, cited) {
  $("passages").replaceChildren(...chunks.map((chunk) => {
    const item = el("li", undefined, cited.has(chunk.chunk_id) ? "cited" : "");
    const where = chunk.pages ? ` p.${chunk.pages}` : (chunk.section ? ` · ${chunk.section}` : "");
    // the one number the answer gives too: relevance (comparable across questions), else the mode's score
    const strength = chunk.relevance != null ? `relevance ${chunk.relevance.toFixed(2)}` : `score ${chunk.score.toFixed(3)}`;
    item.append(el("div", `${chunk.title || chunk.document_id}${where} · ${chunk.chunk_id} · ${strength}`, "meta"));
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

// The request: every option of SearchOptions the page offers, only those given.
export function searchBody(question) {
  const body = { question, mode: $("mode").value, k: Number($("k").value) || 5 };
  const where = $("where").value.split("\n").map((w) => w.trim()).filter(Boolean);
  if (where.length) body.where = where;
  if ($("no-llm").checked) body.generate = false;
  if ($("level").value !== "") body.level = Number($("level").value);
  if ($("source").value.trim()) body.source = $("source").value.trim();
  if ($("target").value.trim()) body.target = $("target").value.trim();
  if ($("hyde").checked) body.hyde = true;
  if ($("conversation").value.trim()) body.conversation_id = $("conversation").value.trim();
  else body.history = thread.slice(-HISTORY_TURNS);
  return body;
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
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(searchBody(question)),
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

export function initAsk() {
  $("ask-form").addEventListener("submit", ask);
  $("new-thread").addEventListener("click", newThread);
  return { refresh: loadModes };
}
