// graphwright's page: plain ES modules, no build step, nothing from the network but this server.
// This module wires the tabs, the workspace selector, the header's counts and the key box to the three
// panels (ask.js, explorer.js, documents.js).
"use strict";

import { $, KEY, ROOT_WORKSPACE, WORKSPACE, WORKSPACE_BASE, el, json } from "./api.js";
import { initAsk } from "./ask.js";
import { initDocuments } from "./documents.js";
import { initExplorer } from "./explorer.js";

const panels = { ask: initAsk(), graph: initExplorer(), documents: initDocuments(), api: { refresh() {} } };

function show(name) {
  if (!(name in panels)) name = "ask";
  document.querySelectorAll("nav.tabs [role=tab]").forEach((tab) => {
    const on = tab.dataset.panel === name;
    tab.setAttribute("aria-selected", String(on));
    $(`panel-${tab.dataset.panel}`).hidden = !on;
  });
  if (location.hash !== `#${name}`) history.replaceState(null, "", `#${name}`);
  panels[name].shown?.();
}

async function loadStats() {
  try {
    const stats = await json("/v1/stats");
    const c = stats.counts;
    const levels = Object.keys(stats.community_levels || {}).length;
    $("stats").textContent = `${c.documents} documents · ${c.chunks} chunks · ${c.entities} entities · ` +
      `${c.relations} relations · ${c.communities ?? 0} communities` + (levels ? ` (${levels} levels)` : "");
  } catch (error) {
    $("stats").textContent = `stats unavailable: ${error.message}`;
  }
}

// The workspace selector: every workspace of the server; choosing one opens the page under its prefix.
async function loadWorkspaces() {
  const select = $("workspace");
  let names = [WORKSPACE];
  try {
    names = (await json("/v1/workspaces")).map((w) => w.name);
    if (!names.includes(WORKSPACE)) names.unshift(WORKSPACE);
  } catch (_) { /* a key without the list still shows the open workspace */ }
  select.replaceChildren(...names.map((name) => el("option", name)));
  select.value = WORKSPACE;
  document.title = `graphwright · ${WORKSPACE}`;
}

function apiExample() {
  const base = `${location.origin}${WORKSPACE_BASE}`;
  $("api-example").textContent = [
    `curl -s ${base}/v1/search -H 'Content-Type: application/json' \\`,
    `  -H "Authorization: Bearer $GRAPHWRIGHT_KEY" \\`,
    `  -d '{"question": "Who founded SpaceX?", "mode": "hybrid", "k": 3, "generate": false}'`,
    "",
    `curl -s '${base}/v1/documents/table?status=failed' -H "Authorization: Bearer $GRAPHWRIGHT_KEY"`,
  ].join("\n");
}

function refreshAll() {
  loadStats();
  Object.values(panels).forEach((panel) => panel.refresh());
}

document.querySelectorAll("nav.tabs [role=tab]").forEach((tab) => tab.addEventListener("click", () => show(tab.dataset.panel)));
$("workspace").addEventListener("change", () => {
  const name = $("workspace").value;
  location.href = (name === ROOT_WORKSPACE ? "/" : `/w/${name}/`) + location.hash;
});
$("save-key").addEventListener("click", () => {
  localStorage.setItem(KEY, $("api-key").value.trim());
  $("key-box").hidden = true;
  loadWorkspaces();
  refreshAll();
  show(location.hash.slice(1));
});
document.addEventListener("graph-changed", refreshAll);
window.addEventListener("hashchange", () => show(location.hash.slice(1)));

apiExample();
loadWorkspaces();
refreshAll();
show(location.hash.slice(1));
