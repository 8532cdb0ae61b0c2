// The popup: the extensions that accept the page, and a Share extension's compose sheet,
// drawn from the same state the terminal host draws (docs/browser.md, "The popup").
// Opened from the toolbar it acts on the active tab; the context menu opens it in a window
// with ?tab=, ?run= and ?context= to run one extension at once.

const $ = (id) => document.getElementById(id);
const parameters = new URLSearchParams(location.search);
const port = chrome.runtime.connect({ name: "appex" });

let tabId = null;
let context = null;
let chosen = null;
let sheet = null;
let textTimer = null;

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
  $("status").hidden = text === "";
}

function item(element, children) {
  const li = document.createElement("li");
  li.append(element, ...(children ?? []));
  return li;
}

function showList(extensions) {
  const list = $("extensions");
  list.replaceChildren();
  if (extensions.length === 0) {
    status(`No Share or Action extension accepts this ${context.kind}. \`appex list\` shows what is installed, and \`appex enable\` turns one on.`);
    return;
  }
  status("");
  for (const extension of extensions) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.identifier = extension.identifier;
    button.textContent = extension.name;
    const detail = document.createElement("small");
    detail.textContent = `${extension.point === "share" ? "Share" : "Action"} · ${extension.app}`;
    button.append(detail);
    button.addEventListener("click", () => start(extension));
    list.append(item(button));
  }
  list.hidden = false;
}

function start(extension) {
  chosen = extension;
  $("extensions").hidden = true;
  $("heading").textContent = extension.name;
  status(`Starting ${extension.name}…`);
  port.postMessage({ type: "run", tabId, extension, context });
}

function compose(message) {
  port.postMessage({ type: "compose", message });
}

function showSheet(next) {
  sheet = next;
  status("");
  $("sheet").hidden = false;
  $("sheet-title").textContent = next.title ?? chosen.name;
  const text = $("sheet-text");
  // Not over an edit the extension hasn't heard of yet (its timer still runs), whether or not
  // the field still has the focus: the sheet that answers the edit brings the text back.
  if (textTimer === null && text.value !== next.contentText) text.value = next.contentText;
  text.placeholder = next.placeholder ?? "";
  const count = $("sheet-count");
  count.textContent = next.charactersRemaining === undefined || next.charactersRemaining === null ? "" : String(next.charactersRemaining);
  count.classList.toggle("over", (next.charactersRemaining ?? 0) < 0);
  $("sheet-post").disabled = !next.isContentValid;
  const items = $("sheet-items");
  items.replaceChildren();
  next.configurationItems.forEach((configuration, index) => {
    const title = document.createElement("span");
    title.textContent = configuration.title;
    const value = document.createElement("span");
    value.textContent = configuration.valuePending ? "…" : configuration.value;
    value.classList.toggle("pending", configuration.valuePending);
    if (configuration.isTappable) {
      const button = document.createElement("button");
      button.type = "button";
      button.append(title, value);
      button.addEventListener("click", () => compose({ name: "tap", index }));
      items.append(item(button));
    } else {
      items.append(item(title, [value]));
    }
  });
  const options = next.optionList;
  $("sheet-options").hidden = !options;
  items.hidden = Boolean(options);
  if (options) {
    $("options-title").textContent = options.title;
    const list = $("options");
    list.replaceChildren();
    options.options.forEach((option, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = (options.selected === index ? "✓ " : "") + option;
      button.addEventListener("click", () => compose({ name: "pick", index }));
      list.append(item(button));
    });
  }
}

function finish(message) {
  $("sheet").hidden = true;
  if (message.outcome === "completed") {
    const notes = [message.message];
    if (message.finalized) notes.push("The page was updated.");
    if (message.replaced) notes.push("The selection was replaced.");
    status(notes.join(" "));
  } else {
    status(message.message, true);
  }
  if (typeof message.text === "string") {
    $("result").textContent = message.text;
    $("result").hidden = false;
  }
  document.body.dataset.timings = JSON.stringify(message.timings ?? {});
  document.body.dataset.outcome = message.outcome;
}

port.onMessage.addListener((message) => {
  switch (message.event) {
    case "list":
      context = message.context;
      $("subject").textContent = message.title || context.url;
      showList(message.extensions);
      if (parameters.has("run")) {
        const extension = message.extensions.find((candidate) => candidate.identifier === parameters.get("run"));
        if (extension) start(extension);
        else status(`${parameters.get("run")} does not accept this ${context.kind}, or is not enabled.`, true);
      }
      break;
    case "progress":
      status(message.text);
      break;
    case "sheet":
      showSheet(message.sheet);
      break;
    case "done":
      finish(message);
      break;
    case "error":
      $("sheet").hidden = true;
      status(message.message, true);
      document.body.dataset.outcome = "error";
      break;
  }
});

$("sheet-text").addEventListener("input", () => {
  $("sheet-post").disabled = true;
  clearTimeout(textTimer);
  textTimer = setTimeout(() => {
    textTimer = null;
    compose({ name: "text", text: $("sheet-text").value });
  }, 150);
});
$("sheet").addEventListener("submit", (event) => {
  event.preventDefault();
  if (textTimer !== null) {
    clearTimeout(textTimer);
    textTimer = null;
    compose({ name: "text", text: $("sheet-text").value });
  }
  status(`Posting to ${chosen.name}…`);
  compose({ name: "post" });
});
$("sheet-cancel").addEventListener("click", () => compose({ name: "cancel" }));
$("options-back").addEventListener("click", () => compose({ name: "back" }));

// Firefox makes running scripts in pages an optional permission, which the user grants
// here; Chromium's switch is in the extension's details (docs/browser.md).
const isFirefox = chrome.runtime.getURL("").startsWith("moz-extension:");

async function askForUserScripts() {
  if (!isFirefox || (await chrome.permissions.contains({ permissions: ["userScripts"] }))) return;
  $("permission").hidden = false;
}

$("allow").addEventListener("click", async () => {
  const granted = await chrome.permissions.request({ permissions: ["userScripts"] });
  $("permission").hidden = granted;
  if (!granted) status("Without that permission, an extension that reads the page can't run.", true);
});

async function begin() {
  await askForUserScripts();
  if (parameters.has("tab")) {
    tabId = Number(parameters.get("tab"));
  } else {
    const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
    tabId = tab?.id ?? null;
  }
  if (tabId === null) return status("There is no page to share.", true);
  const given = parameters.get("context");
  port.postMessage({ type: "list", tabId, context: given ? JSON.parse(given) : undefined });
}

void begin();
