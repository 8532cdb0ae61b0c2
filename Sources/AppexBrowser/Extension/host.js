// The native messaging host, appex-browser, over one port that lives as long as the
// service worker (docs/browser.md, "Messages").

/** The host's name in the native-messaging manifests that `appex browser install` writes. */
export const HOST_NAME = "org.appex.browser";

/** Events of a running request that are not its end. */
const PROGRESS = new Set(["launching", "sheet"]);

/** A call the host has not finished answering. */
class PendingCall {
  constructor(resolve, reject, onEvent) {
    this.resolve = resolve;
    this.reject = reject;
    this.onEvent = onEvent;
  }
}

/** One connection to appex-browser, opened on first use and again after it ends. */
export class NativeHost {
  #port = null;
  #nextId = 1;
  #pending = new Map();

  /**
   * Sends `message` and resolves with the host's answer: for a `begin`, the request's last
   * event; `onEvent` gets the events before it. Rejects with the host's error.
   * Returns the message's id with the promise, for `compose` and `cancel`.
   */
  start(message, onEvent) {
    const id = this.#nextId++;
    const done = new Promise((resolve, reject) => {
      this.#pending.set(id, new PendingCall(resolve, reject, onEvent));
      try {
        this.#connect().postMessage({ ...message, id });
      } catch (error) {
        this.#pending.delete(id);
        reject(error);
      }
    });
    return { id, done };
  }

  /** Sends `message` and resolves with the answer. */
  call(message, onEvent) {
    return this.start(message, onEvent).done;
  }

  #connect() {
    if (this.#port) return this.#port;
    const port = chrome.runtime.connectNative(HOST_NAME);
    port.onMessage.addListener((message) => this.#received(message));
    port.onDisconnect.addListener(() => {
      const reason = chrome.runtime.lastError?.message ?? "the host ended";
      this.#port = null;
      const error = new Error(`Appex's native host is not available (${reason}). Run \`appex browser install\`, then reload this extension.`);
      for (const call of this.#pending.values()) call.reject(error);
      this.#pending.clear();
    });
    this.#port = port;
    return port;
  }

  #received(message) {
    const call = this.#pending.get(message?.id);
    if (!call) {
      if (message?.error) console.warn("Appex's native host:", message.error);
      return;
    }
    if (message.event && PROGRESS.has(message.event)) {
      call.onEvent?.(message);
      return;
    }
    this.#pending.delete(message.id);
    if (message.error && !message.event) call.reject(new Error(message.error));
    else call.resolve(message);
  }
}
