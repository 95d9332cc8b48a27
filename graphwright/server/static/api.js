// What every part of the page shares: the server's API (under the open workspace's prefix, with the key this
// browser keeps), and safe DOM building. Text from the graph is only ever set with textContent.
"use strict";

export const $ = (id) => document.getElementById(id);
export const KEY = "graphwright-api-key";

// The page opened at /w/<name>/ works in that workspace: every call goes under the same prefix.
export const WORKSPACE_BASE = (location.pathname.match(/^\/w\/[a-z0-9][a-z0-9_-]*(?=\/)/) || [""])[0];
// The workspace this page works in, and the one the server serves at / (its own), as the server wrote them.
const META = document.querySelector("meta[name=graphwright-workspace]");
export const WORKSPACE = META.content;
export const ROOT_WORKSPACE = META.dataset.root;

function headers(extra = {}) {
  const key = localStorage.getItem(KEY);
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

export async function api(path, options = {}) {
  const response = await fetch(WORKSPACE_BASE + path, { ...options, headers: headers(options.headers || {}) });
  if (response.status === 401) $("key-box").hidden = false;
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    try { message = (await response.json()).error.message || message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

export const json = async (path, options) => (await api(path, options)).json();

export function post(path, body) {
  return json(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
}

export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// The graph changed (an upload, a delete, a curation): the header's counts and the open tabs refresh.
export const changed = () => document.dispatchEvent(new CustomEvent("graph-changed"));

// Each entity type's colour, the answer graph's own (the server writes its palette into the page).
const PALETTE = JSON.parse($("palette").textContent);
export const colour = (type) => PALETTE[type] || PALETTE["*"];
