// The Appex browser extension's service worker: it asks the native host which Share and
// Action extensions accept what the user acted on, runs the chosen one's preprocessing in
// the page, starts the request, and brings the result back into the page
// (docs/browser.md).

import { NativeHost } from "./host.js";
import { finalize, preprocess, replaceSelection } from "./page.js";

const host = new NativeHost();

/** The most bytes of an image sent to an extension, as the host takes them. */
const IMAGE_LIMIT = 5 * 1024 * 1024;

/** What the user acted on in `tab`: the page, or a link, selection or image from the context menu. */
function contextOf(tab, clicked) {
  const base = { url: tab.url, title: tab.title ?? "" };
  if (clicked?.mediaType === "image" && clicked.srcUrl) {
    return { ...base, kind: "image", image: { url: clicked.srcUrl, type: imageType(clicked.srcUrl) } };
  }
  if (clicked?.linkUrl) return { ...base, kind: "link", link: clicked.linkUrl };
  if (clicked?.selectionText) return { ...base, kind: "selection", selection: clicked.selectionText };
  return { ...base, kind: "page" };
}

/** The Share and Action extensions that accept `context`, in the user's order. */
async function list(context) {
  const reply = await host.call({ type: "list", context });
  return reply.extensions;
}

/**
 * The preprocessing files of the extensions the popup last listed, asked for as the list is
 * shown, by identifier: the user is about to choose one, and the click then waits for no
 * file. Each serves one run.
 */
const scripts = new Map();

function prefetchScripts(extensions) {
  scripts.clear();
  for (const extension of extensions.filter((candidate) => candidate.preprocessing)) {
    const pending = host.call({ type: "script", extension: extension.identifier });
    pending.catch(() => {}); // A failure is reported when the extension is run.
    scripts.set(extension.identifier, pending);
  }
}

/** `extension`'s preprocessing file, as prefetched, or asked for now if it wasn't or failed then. */
async function scriptOf(extension) {
  const prefetched = scripts.get(extension.identifier);
  scripts.delete(extension.identifier);
  try {
    if (prefetched) return await prefetched;
  } catch {
    // Asked again below: the file may be back, and the error is reported as it is now.
  }
  return host.call({ type: "script", extension: extension.identifier });
}

/** An image's MIME type, as its address suggests it, until its bytes are fetched. */
function imageType(url) {
  const types = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp", svg: "image/svg+xml", avif: "image/avif" };
  const data = /^data:(image\/[\w.+-]+)[;,]/.exec(url);
  if (data) return data[1];
  const extension = /\.(\w+)(?:[?#]|$)/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  return types[extension] ?? "image/png";
}

/** The image at `url`, fetched: its address, type and bytes (base64), for a request. */
async function fetchImage(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the image could not be fetched: the server answered ${response.status}`);
  const blob = await response.blob();
  if (!blob.type.startsWith("image/")) throw new Error(`${url} is not an image, but ${blob.type || "of no type"}`);
  if (blob.size > IMAGE_LIMIT) throw new Error(`the image is ${blob.size} bytes; at most ${IMAGE_LIMIT} go to an extension`);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = "";
  for (let start = 0; start < bytes.length; start += 0x8000) binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
  return { url, type: blob.type, data: btoa(binary) };
}

let worlds = 0;

/**
 * Runs `extension` on `context` in `tab`: preprocessing first when it gets the web page,
 * then the request, then the page update. `report` gets each step as it happens, and a
 * Share extension's sheets; `began` gets the request's id, to send compose messages to.
 * Resolves with the outcome: {outcome, message, finalized, replaced, text}.
 */
async function run(tabId, extension, context, report, began) {
  // Where the time goes, in milliseconds: for people, and for the benchmarks (BENCHMARKS.md).
  const timings = {};
  let mark = performance.now();
  const lap = (name) => {
    const now = performance.now();
    timings[name] = now - mark;
    mark = now;
  };
  let results = null;
  if (context.kind === "image" && !context.image.data) {
    report({ event: "progress", step: "fetching", text: "Fetching the image…" });
    context = { ...context, image: await fetchImage(context.image.url) };
    lap("image");
  }
  // A world of its own for each run, so that one extension's script never sees another's
  // globals, and a file run twice on one page declares its classes afresh.
  const worldId = `appex-${++worlds}-${Date.now()}`;
  if (extension.preprocessing) {
    report({ event: "progress", step: "preprocessing", text: `Reading the page for ${extension.name}…` });
    const script = await scriptOf(extension);
    lap("script");
    results = await preprocess(tabId, worldId, script.file, script.script);
    lap("preprocessing");
  }
  report({ event: "progress", step: "launching", text: `Starting ${extension.name}…` });
  const request = host.start({ type: "begin", extension: extension.identifier, context, results }, (event) => {
    if (event.event === "launching") report({ event: "progress", step: "running", text: `${extension.name} is running…` });
    if (event.event === "sheet") report({ event: "sheet", sheet: event.sheet, request: request.id });
  });
  began?.(request.id);
  const end = await request.done;
  lap("request");
  if (end.event !== "completed") {
    return { outcome: end.event, message: end.error ?? `${extension.name} ${end.event}`, timings };
  }
  const outcome = { outcome: "completed", message: `${extension.name} is done.`, timings };
  if (end.finalize !== undefined && end.finalize !== null && extension.preprocessing) {
    const finalized = await finalize(tabId, worldId, end.finalize);
    lap("finalize");
    if (finalized?.error) return { outcome: "failed", message: finalized.error, timings };
    outcome.finalized = finalized?.finalized === true;
  }
  if (typeof end.text === "string") {
    outcome.replaced = await replaceSelection(tabId, end.text);
    if (!outcome.replaced) outcome.text = end.text;
  }
  return outcome;
}

// The popup (and the compose window) talk to the worker over a port named "appex".
chrome.runtime.onConnect.addListener((port) => {
  if (port.name !== "appex" || port.sender?.id !== chrome.runtime.id) return port.disconnect();
  let running = null;
  const send = (message) => {
    try {
      port.postMessage(message);
    } catch {
      // The popup closed; the request is cancelled below.
    }
  };
  port.onDisconnect.addListener(() => {
    if (running !== null) host.call({ type: "cancel", request: running }).catch(() => {});
  });
  port.onMessage.addListener(async (message) => {
    try {
      switch (message?.type) {
        case "list": {
          const tab = await chrome.tabs.get(message.tabId);
          const context = message.context ?? contextOf(tab);
          const extensions = await list(context);
          prefetchScripts(extensions);
          send({ event: "list", context, extensions, title: tab.title });
          break;
        }
        case "run": {
          const outcome = await run(message.tabId, message.extension, message.context, send, (id) => (running = id));
          running = null;
          send({ event: "done", ...outcome });
          break;
        }
        case "compose":
          if (running !== null) await host.call({ type: "compose", request: running, message: message.message });
          break;
        default:
          send({ event: "error", message: `unknown message ${JSON.stringify(message?.type)}` });
      }
    } catch (error) {
      running = null;
      send({ event: "error", message: error.message });
    }
  });
});

// The context menu: one entry per extension that accepts a page, a link, a selection or an image.
// Chromium builds menus before they open, so the entries are worked out per kind of
// context and checked again against what the user really clicked (docs/browser.md).
const MENU_KINDS = { page: "page", link: "link", selection: "selection", image: "image" };
const SAMPLE = {
  page: { kind: "page", url: "https://example.com/", title: "" },
  link: { kind: "link", url: "https://example.com/", link: "https://example.com/link" },
  selection: { kind: "selection", url: "https://example.com/", selection: "text" },
  image: { kind: "image", url: "https://example.com/", image: { url: "https://example.com/picture.png", type: "image/png" } },
};

async function buildMenus() {
  await chrome.contextMenus.removeAll();
  for (const [kind, contexts] of Object.entries(MENU_KINDS)) {
    let extensions;
    try {
      extensions = await list(SAMPLE[kind]);
    } catch (error) {
      console.warn("Appex: the context menu could not be built:", error.message);
      return;
    }
    if (extensions.length === 0) continue;
    const parent = `appex:${kind}`;
    chrome.contextMenus.create({ id: parent, title: "Appex", contexts: [contexts] });
    for (const extension of extensions) {
      chrome.contextMenus.create({
        id: `${kind}|${extension.point}|${extension.identifier}`,
        parentId: parent,
        title: `${extension.name}${extension.point === "share" ? "…" : ""}`,
        contexts: [contexts],
      });
    }
  }
}

/** A menu entry was chosen: an Action runs here, a Share extension opens its compose window. */
async function menuClicked(clicked, tab) {
  const [, point, identifier] = String(clicked.menuItemId).split("|");
  if (!identifier || !tab?.id) return;
  const context = contextOf(tab, clicked);
  const extensions = await list(context);
  const extension = extensions.find((candidate) => candidate.identifier === identifier);
  if (!extension) {
    return badge(tab.id, "!", `The extension does not accept this ${context.kind}, or is no longer enabled.`);
  }
  if (point === "share") {
    const query = new URLSearchParams({ tab: String(tab.id), run: identifier, context: JSON.stringify(context) });
    return chrome.windows.create({ url: `popup.html?${query}`, type: "popup", width: 480, height: 560 });
  }
  await badge(tab.id, "…", `Running ${extension.name}…`);
  try {
    const outcome = await run(tab.id, extension, context, () => {});
    await badge(tab.id, outcome.outcome === "completed" ? "" : "!", outcome.message);
  } catch (error) {
    await badge(tab.id, "!", error.message);
  }
}

async function badge(tabId, text, title) {
  await chrome.action.setBadgeText({ tabId, text });
  await chrome.action.setTitle({ tabId, title: title ?? "Appex" });
}

chrome.contextMenus.onClicked.addListener((clicked, tab) => void menuClicked(clicked, tab));
chrome.runtime.onInstalled.addListener(() => void buildMenus());
chrome.runtime.onStartup.addListener(() => void buildMenus());

// For the tests and the popup: the same entry points the menus and the button use.
globalThis.appex = {
  buildMenus,
  menuClicked,
  list,
  contextOf,
  hello: () => host.call({ type: "hello" }),
  /** Whether the popup's file of `identifier` was "read", "failed" or not asked for ("none"). */
  prefetched: async (identifier) => (scripts.has(identifier) ? scripts.get(identifier).then(() => "read", () => "failed") : "none"),
};
