// What runs in the web page: an extension's preprocessing file and its finalize, and the
// text an Action returns in place of the selection. Each runs through chrome.userScripts in
// a user-script world of its own, never in the page's world (docs/browser.md, "Where the
// script runs"). These functions are injected as they are written; nothing here builds code
// from what a page or an extension sent, which crosses only as JSON string literals.

/** How long a preprocessing file has to call completionFunction. */
export const PREPROCESSING_DEADLINE_MS = 10_000;
/** The most bytes of JSON a page's results may be. */
export const RESULTS_LIMIT = 4 * 1024 * 1024;

/**
 * Runs in the page after the preprocessing file: calls `ExtensionPreprocessingJS.run` with a
 * `completionFunction`, and settles with `{json}` (the results, checked to be a property
 * list and serialized) or `{error}`. Only the first call of the completion function counts.
 */
function preprocessingRunner(deadlineMs, limit) {
  const plainKind = (value) => {
    if (value === null) return "null";
    if (Array.isArray(value)) return "an array";
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) return "an object";
    return `a ${value?.constructor?.name ?? "value"}`;
  };
  let entries = 0;
  // Why `value` is not a property list, or null if it is one.
  const problem = (value, path, depth) => {
    if (depth > 64) return `${path} is nested more than 64 deep`;
    if (++entries > 1_000_000) return "the results hold more than a million values";
    switch (typeof value) {
      case "string":
      case "boolean":
        return null;
      case "number":
        return Number.isFinite(value) ? null : `${path} is ${value}, which a property list can't hold`;
      case "object": {
        const kind = plainKind(value);
        if (kind === "null") return `${path} is null; property lists have no null`;
        if (kind === "an array") {
          for (let index = 0; index < value.length; index++) {
            const found = problem(value[index], `${path}[${index}]`, depth + 1);
            if (found) return found;
          }
          return null;
        }
        if (kind !== "an object") return `${path} is ${kind}; a property list holds only strings, numbers, booleans, arrays and objects`;
        for (const key of Object.keys(value)) {
          const found = problem(value[key], `${path}.${key}`, depth + 1);
          if (found) return found;
        }
        return null;
      }
      default:
        return `${path} is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}; a property list holds only strings, numbers, booleans, arrays and objects`;
    }
  };
  const describe = (error) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return new Promise((resolve) => {
    let settled = false;
    let timer = null;
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    timer = setTimeout(() => finish({ error: `ExtensionPreprocessingJS.run did not call completionFunction within ${deadlineMs / 1000} s` }), deadlineMs);
    let script;
    try {
      script = ExtensionPreprocessingJS; // eslint-disable-line no-undef
    } catch {
      return finish({ error: "the preprocessing file defines no global ExtensionPreprocessingJS" });
    }
    if (script === null || (typeof script !== "object" && typeof script !== "function") || typeof script.run !== "function") {
      return finish({ error: "ExtensionPreprocessingJS has no run function" });
    }
    const completionFunction = (results) => {
      if (settled) return;
      if (typeof results !== "object" || results === null || Array.isArray(results)) {
        return finish({ error: `completionFunction was given ${results === null ? "null" : Array.isArray(results) ? "an array" : `a ${typeof results}`}; it takes a dictionary (a JavaScript object)` });
      }
      const found = problem(results, "results", 0);
      if (found) return finish({ error: `the results are not a property list: ${found}` });
      let json;
      try {
        json = JSON.stringify(results);
      } catch (error) {
        return finish({ error: `the results can't be serialized: ${describe(error)}` });
      }
      const bytes = json.length * 3 > limit ? new TextEncoder().encode(json).length : json.length;
      if (bytes > limit) return finish({ error: `the results are ${bytes} bytes of JSON; at most ${limit} go to the extension` });
      finish({ json });
    };
    try {
      script.run({ completionFunction });
    } catch (error) {
      finish({ error: `ExtensionPreprocessingJS.run threw ${describe(error)}` });
    }
  });
}

/** Runs in the page: calls `ExtensionPreprocessingJS.finalize` with the argument, given as JSON. */
function finalizeRunner(argumentJSON) {
  let script;
  try {
    script = ExtensionPreprocessingJS; // eslint-disable-line no-undef
  } catch {
    return { error: "the preprocessing file's ExtensionPreprocessingJS is gone" };
  }
  if (typeof script?.finalize !== "function") return { skipped: "ExtensionPreprocessingJS has no finalize function" };
  try {
    script.finalize(JSON.parse(argumentJSON));
    return { finalized: true };
  } catch (error) {
    return { error: `ExtensionPreprocessingJS.finalize threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}` };
  }
}

/** Runs in the page: puts `text` in place of the selection, in a text field or the page. */
function selectionReplacer(text) {
  const field = document.activeElement;
  if (field instanceof HTMLTextAreaElement || (field instanceof HTMLInputElement && field.selectionStart !== null)) {
    if (field.selectionStart === field.selectionEnd) return { replaced: false };
    field.setRangeText(text, field.selectionStart, field.selectionEnd, "end");
    field.dispatchEvent(new Event("input", { bubbles: true }));
    return { replaced: true };
  }
  const selection = getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return { replaced: false };
  const range = selection.getRangeAt(0);
  const editable = range.commonAncestorContainer.parentElement?.closest?.("[contenteditable]");
  if (editable && document.execCommand("insertText", false, text)) return { replaced: true };
  range.deleteContents();
  range.insertNode(document.createTextNode(text));
  selection.collapseToEnd();
  return { replaced: true };
}

/** A call of `runner` with `args`, as the source of a script. The arguments are JSON. */
function invocation(runner, ...args) {
  return `(${runner.toString()})(${args.map((value) => JSON.stringify(value)).join(", ")})`;
}

/** The one result of an injection into a tab's top frame, or an Error saying why there is none. */
async function inject(tabId, worldId, sources) {
  if (!chrome.userScripts?.execute) {
    throw new Error(
      chrome.runtime.getURL("").startsWith("moz-extension:")
        ? "this extension's script can't run in the page until you allow it: choose Allow at the top of Appex's popup"
        : 'this extension\'s script can\'t run in the page until you allow it: open the Appex extension\'s details (chrome://extensions) and turn on "Allow User Scripts" (before Chromium 138: turn on Developer mode)',
    );
  }
  let injections;
  try {
    injections = await chrome.userScripts.execute({
      target: { tabId },
      world: "USER_SCRIPT",
      worldId,
      injectImmediately: true,
      js: sources.map((code) => ({ code })),
    });
  } catch (error) {
    throw new Error(`the page can't run scripts: ${error.message}`);
  }
  const [injection] = injections ?? [];
  if (!injection) throw new Error("the page ran nothing; it may have been closed or navigated away");
  if (injection.error) throw new Error(injection.error);
  return injection.result;
}

/**
 * Runs an extension's preprocessing file in the tab, in a world of its own named
 * `worldId`, and returns what it passed to completionFunction (parsed from JSON).
 */
export async function preprocess(tabId, worldId, file, source) {
  const outcome = await inject(tabId, worldId, [source, invocation(preprocessingRunner, PREPROCESSING_DEADLINE_MS, RESULTS_LIMIT)]);
  if (!outcome || typeof outcome !== "object") throw new Error(`${file} did not run: it may not be valid JavaScript`);
  if (outcome.error) throw new Error(`${file}: ${outcome.error}`);
  return JSON.parse(outcome.json);
}

/** Calls finalize in the world the preprocessing file ran in; returns what happened. */
export async function finalize(tabId, worldId, argument) {
  return inject(tabId, worldId, [invocation(finalizeRunner, JSON.stringify(argument))]);
}

/** Puts `text` in place of the page's selection; returns whether there was one. */
export async function replaceSelection(tabId, text) {
  const outcome = await inject(tabId, "appex-selection", [invocation(selectionReplacer, text)]);
  return outcome?.replaced === true;
}
