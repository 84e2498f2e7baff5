// Small touches on top of forms that work without JavaScript.
// Typing points picks "points" for that player; tapping a drop clears the box.
document.addEventListener("input", (event) => {
  const box = event.target.closest(".result .points input");
  if (!box) return;
  const points = box.closest(".result").querySelector("input[type=radio][value=points]");
  if (points) points.checked = true;
});
document.addEventListener("change", (event) => {
  const word = event.target.closest(".result .word input[type=radio]");
  if (!word || word.value === "points") return;
  const box = word.closest(".result").querySelector(".points input");
  if (box) box.value = "";
});
// After a warning to confirm (a drop for a player who must play), any change to
// a result takes the confirmation back: Save says plainly what it does again,
// and a drop chosen again is warned of again by the server.
const unconfirm = (event) => {
  const form = event.target.closest && event.target.closest("form.deal-form");
  const confirm = form && form.querySelector("input[name=confirm]");
  if (!confirm || !event.target.closest(".result")) return;
  const callout = confirm.closest(".callout");
  if (callout) callout.remove();
  else confirm.remove();
  const save = form.querySelector("button[data-plain]");
  if (save) save.textContent = save.dataset.plain;
};
document.addEventListener("input", unconfirm);
document.addEventListener("change", unconfirm);
// Tapping the winner moves the thumb to the first player still to score.
document.addEventListener("change", (event) => {
  if (event.target.name !== "winner") return;
  const rows = event.target.closest(".deal-rows").querySelectorAll(".deal-row");
  for (const row of rows) {
    if (row.contains(event.target)) continue;
    const box = row.querySelector(".points input");
    if (box && !box.value) { box.focus({ preventScroll: false }); break; }
  }
});
// Copy a share link and say so in the page's language: the button for 2 s, and
// the line under the link. The clipboard API needs a secure context (HTTPS or
// localhost): on `make run`'s address on the home network (plain HTTP) the link
// is selected and copied the older way; where that fails too, it is left
// selected and the line says to press and hold it (the phone's own Copy).
const copyLink = (field, button) => {
  const said = document.getElementById(`${field.id}-said`);
  const label = button.dataset.label || button.textContent;
  button.dataset.label = label;
  const say = (copied) => {
    if (said) said.textContent = copied ? said.dataset.copied : said.dataset.hold;
    if (!copied) return;
    button.textContent = button.dataset.copied;
    setTimeout(() => { button.textContent = label; }, 2000);
  };
  const selectAndCopy = () => {
    field.focus();
    field.select();
    field.setSelectionRange(0, field.value.length);
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
    say(copied);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(() => say(true), selectAndCopy);
  } else {
    selectAndCopy();
  }
};
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  const field = button && document.getElementById(button.dataset.copy);
  if (field) copyLink(field, button);
});
// Share a link through the phone's share sheet (WhatsApp, SMS ...) with a line
// saying what it is; where the browser has none, the link is copied. Without
// JavaScript the button stays hidden: the link beside it is there to copy.
const showShareButtons = (root) => {
  for (const button of root.querySelectorAll("button[data-share][hidden]")) button.hidden = false;
};
document.addEventListener("DOMContentLoaded", () => showShareButtons(document));
document.addEventListener("htmx:load", (event) => showShareButtons(event.target));
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-share]");
  const field = button && document.getElementById(button.dataset.share);
  if (!field) return;
  const shared = { text: button.dataset.shareText, url: field.value };
  if (navigator.share && (!navigator.canShare || navigator.canShare(shared))) {
    navigator.share(shared).catch(() => {}); // closed without sharing: nothing to do
  } else {
    copyLink(field, button);
  }
});
// A name cut short in the stats ("Lakshmi Nar…"): a tap shows it whole, another cuts it again.
document.addEventListener("click", (event) => {
  const name = event.target.closest("table.stats .who");
  if (name && (name.scrollWidth > name.clientWidth || name.classList.contains("whole"))) {
    name.classList.toggle("whole");
  }
});
// Links that open a form in place (a deal's Edit, Split the pot, Count cards):
// plain links that work without JavaScript, marked with the slot they open in
// (data-slot), fetched by htmx into it on a tap. One listener for all of them,
// not an hx-get each: htmx sets up every hx-get element of a page one by one
// when it starts, 19 links on a 50-deal game screen.
// A tap with a modifier key (a new tab) is left to the browser.
document.addEventListener("click", (event) => {
  const link = event.target.closest("a[data-slot][href]");
  if (!link || !window.htmx || event.button !== 0) return;
  if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  const slot = document.getElementById(link.dataset.slot);
  if (!slot) return;
  event.preventDefault();
  const swap = slot.id === "change-slot" ? "innerHTML show:#change-slot:top" : "innerHTML";
  htmx.ajax("GET", link.getAttribute("href"), { source: link, target: slot, swap });
});
// The hand calculator in the deal form: "Use N points" fills that player's box.
document.addEventListener("click", (event) => {
  const use = event.target.closest("button[data-fill-seat]");
  const close = event.target.closest("[data-close-calc]");
  if (!use && !close) return;
  const slot = document.getElementById("calc-slot");
  if (!slot) return;
  event.preventDefault();
  if (use) {
    const seat = use.dataset.fillSeat;
    const box = document.querySelector(`#deal-entry input[name="p${seat}"]`);
    const points = document.querySelector(`#deal-entry input[name="r${seat}"][value=points]`);
    if (box) box.value = use.dataset.points;
    if (points) points.checked = true;
  }
  slot.replaceChildren();
});
// Installable and readable offline (the service worker: tracker/sw.js, at /sw.js).
// A page the worker kept carries data-fetched-at on <body> and is only ever
// shown without a network. Offline, a page says since when its scores are and
// every change control is off, with the reason; nothing is queued. Back online
// the live poll resumes and the notice goes; a kept copy loads afresh.
// Registered once the page has loaded, so installing it never slows the first paint.
if ("serviceWorker" in navigator) {
  const register = () => navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}
(() => {
  const kept = document.body.dataset.fetchedAt;
  let asOf = kept ? new Date(kept) : new Date();
  let offline = false;
  const main = document.querySelector("main");
  const twoDigits = (n) => String(n).padStart(2, "0");
  const sameGameLink = (link) => {
    // A link into this page's game or table (edit a deal, split, downloads): it needs the server.
    const url = new URL(link.href, location.href);
    return url.origin === location.origin && location.pathname !== "/" &&
      url.pathname.startsWith(location.pathname) &&
      (url.pathname !== location.pathname || url.search !== "");
  };
  const describedBy = (element, add) => {
    const ids = (element.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    const next = add ? [...ids, "offline-now"] : ids.filter((id) => id !== "offline-now");
    if (next.length) element.setAttribute("aria-describedby", next.join(" "));
    else element.removeAttribute("aria-describedby");
  };
  const goOffline = () => {
    if (offline || !main) return;
    offline = true;
    document.documentElement.classList.add("offline");
    const notice = document.getElementById("offline-notice").content.firstElementChild.cloneNode(true);
    const time = notice.querySelector("time");
    time.textContent = `${twoDigits(asOf.getHours())}:${twoDigits(asOf.getMinutes())}`;
    time.dateTime = asOf.toISOString();
    main.prepend(notice);
    for (const form of main.querySelectorAll("form[method=post]")) {
      if (form.querySelector("button:not([type=button])") && form.closest("#deal-entry")) {
        form.prepend(document.getElementById("offline-reason").content.firstElementChild.cloneNode(true));
      }
      for (const control of form.elements) {
        if (control.disabled || control.type === "hidden") continue;
        control.disabled = true;
        control.dataset.offlineOff = "";
        describedBy(control, true);
      }
    }
    for (const link of main.querySelectorAll("a[href]")) {
      if (!sameGameLink(link)) continue;
      link.dataset.offlineHref = link.getAttribute("href");
      link.removeAttribute("href");
      link.setAttribute("aria-disabled", "true");
      describedBy(link, true);
    }
  };
  const backOnline = () => {
    asOf = new Date();
    if (!offline) return;
    if (kept) {
      location.reload(); // the kept copy's forms are old: load the page afresh
      return;
    }
    offline = false;
    document.documentElement.classList.remove("offline");
    for (const element of main.querySelectorAll(".offline-notice, .offline-reason")) element.remove();
    for (const control of main.querySelectorAll("[data-offline-off]")) {
      control.disabled = false;
      delete control.dataset.offlineOff;
      describedBy(control, false);
    }
    for (const link of main.querySelectorAll("a[data-offline-href]")) {
      link.setAttribute("href", link.dataset.offlineHref);
      delete link.dataset.offlineHref;
      link.removeAttribute("aria-disabled");
      describedBy(link, false);
    }
  };
  // Back once the server answers (not merely when the phone says it is online:
  // the Wi-Fi can be up with the server out of reach): a kept copy loads afresh,
  // a page that went offline lifts its notice. Asked at once when the phone is
  // online again (and again every 0.5 s for 2 s: the event can come a moment
  // before the network carries a request), and every 5 s while offline: a page
  // with no live poll (a table, a finished game) or with a stream that died
  // unnoticed would otherwise wait for a reload.
  const askServer = (again = 0) => {
    fetch(location.pathname, { method: "HEAD", cache: "no-store" }).then((response) => {
      if (!response.ok) return;
      if (kept) location.reload();
      else backOnline();
    }, () => { if (again > 0) setTimeout(() => askServer(again - 1), 500); });
  };
  if (kept) goOffline();
  window.addEventListener("offline", goOffline);
  window.addEventListener("online", () => askServer(3));
  // The stream's word came (tracker.js, pushed updates below): the server is reached.
  document.addEventListener("tracker:server-reached", () => { if (offline && !kept) backOnline(); });
  setInterval(() => { if (offline && !kept) askServer(); }, 5000);
  // The live poll (every 2 s) tells whether the server can be reached.
  document.addEventListener("htmx:sendError", goOffline);
  document.addEventListener("htmx:afterRequest", (event) => {
    if (event.detail.successful) backOnline();
  });
  const KEEP_AFTER_MS = 1000;
  // The board changed in place, fetched or sent by the stream (no request of
  // its own): the worker keeps the page's new state, once the page has been
  // quiet for a second (once for a swap and its parts; the keeping fetches the
  // page, so not while the other phones' boards are being made).
  let keepSoon = null;
  document.addEventListener("htmx:afterSettle", (event) => {
    const worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (kept || !worker || (event.detail.xhr && event.detail.xhr.status !== 200)) return;
    clearTimeout(keepSoon);
    keepSoon = setTimeout(() => worker.postMessage({ keep: location.pathname }), KEEP_AFTER_MS);
  });
  // A kept copy with no live poll (a finished game, a table, the home page)
  // asks every 5 s whether the server is back.
  if (kept && !document.querySelector("[hx-trigger^=every]")) setInterval(askServer, 5000);
})();
// The live poll re-sends the deal form when another phone saved (the number,
// the dealer, who is in). What was typed here is put into the new form; if
// anything was typed, the form keeps the version it was typed against, so
// saving it shows the other phone's deal first rather than saving twice.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const target = event.detail.target;
  const fresh = event.detail.fragment;
  if (!target || target.id !== "deal-entry" || !fresh || !fresh.querySelector) return;
  const old = target.querySelector("form.deal-form");
  const form = fresh.querySelector("form.deal-form");
  if (!old || !form) return;
  // This form's own save (it still has htmx's request class): the new form is
  // the fresh one of the deal after it, with nothing to carry over.
  if (old.classList.contains("htmx-request")) return;
  let typed = false;
  for (const control of old.elements) {
    if (!control.name || control.type === "hidden") continue;
    if (control.type === "radio" || control.type === "checkbox") {
      if (!control.checked) continue;
      if (control.type === "checkbox" || control.name === "winner" || control.value !== "points") typed = true;
      const same = form.querySelector(`input[name="${control.name}"][value="${control.value}"]`);
      if (same) {
        for (const other of form.querySelectorAll(`input[name="${control.name}"]`)) other.removeAttribute("checked");
        same.setAttribute("checked", "");
      }
    } else if (control.value) {
      typed = true;
      const same = form.querySelector(`[name="${control.name}"]`);
      if (same) same.setAttribute("value", control.value);
    }
  }
  if (!typed) return;
  const version = old.querySelector("input[name=version]");
  const newVersion = form.querySelector("input[name=version]");
  if (version && newVersion) newVersion.setAttribute("value", version.value);
  const drift = form.querySelector(".drift");
  if (drift) drift.hidden = false;
});
// A pull-to-refresh or a reload mid-deal: what was typed is kept on this phone
// (sessionStorage, by game and the revision the form was made for) and offered
// back in the new page's form. Saved, or another phone's deal saved, it is gone.
(() => {
  const form = () => document.querySelector("#deal-entry form.deal-form");
  const keyOf = (shown) => {
    const version = shown && shown.querySelector("input[name=version]");
    return version ? `typed-deal:${location.pathname}:${version.value}` : null;
  };
  const typedIn = (shown) => {
    const typed = [];
    let any = false;
    for (const control of shown.elements) {
      if (!control.name || control.type === "hidden" || control.tagName === "BUTTON") continue;
      if (control.type === "radio" || control.type === "checkbox") {
        if (!control.checked) continue;
        typed.push([control.name, control.value]);
        if (control.type === "checkbox" || control.name === "winner" || control.value !== "points") any = true;
      } else if (control.value) {
        typed.push([control.name, control.value]);
        any = true;
      }
    }
    return any ? typed : null;
  };
  const keep = (event) => {
    const shown = form();
    if (!shown || !shown.contains(event.target)) return;
    const key = keyOf(shown);
    const typed = typedIn(shown);
    try {
      if (typed) sessionStorage.setItem(key, JSON.stringify(typed));
      else sessionStorage.removeItem(key);
    } catch {
      // no storage (a private window that refuses it): nothing is kept
    }
  };
  document.addEventListener("input", keep);
  document.addEventListener("change", keep);
  const forget = () => {
    try {
      for (const key of Object.keys(sessionStorage)) {
        if (key.startsWith(`typed-deal:${location.pathname}:`)) sessionStorage.removeItem(key);
      }
    } catch {
      // nothing was kept
    }
  };
  // The deal saved (its form's post answered 2xx): nothing to offer back.
  document.addEventListener("htmx:afterRequest", (event) => {
    const from = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (event.detail.successful && from && from.matches && from.matches("form.deal-form")) forget();
  });
  const offer = () => {
    const shown = form();
    const callout = shown && document.querySelector("#deal-entry .typed-back");
    if (!callout) return;
    let kept = null;
    try {
      kept = JSON.parse(sessionStorage.getItem(keyOf(shown)) || "null");
    } catch {
      kept = null;
    }
    if (!kept) {
      forget(); // typed against another revision: the deal it was for is saved or moved on
      return;
    }
    // The browser may have put some of it back itself (a radio): offered if any is missing.
    if (JSON.stringify(kept) === JSON.stringify(typedIn(shown))) return;
    callout.hidden = false;
    callout.addEventListener("click", (event) => {
      const button = event.target.closest("[data-typed-back]");
      if (!button) return;
      if (button.dataset.typedBack === "fill") {
        for (const [name, value] of kept) {
          const control = [...shown.elements].find((c) => c.name === name &&
            (c.type === "radio" || c.type === "checkbox" ? c.value === value : true));
          if (!control) continue;
          if (control.type === "radio" || control.type === "checkbox") control.checked = true;
          else control.value = value;
        }
      } else {
        forget();
      }
      callout.hidden = true;
    });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", offer);
  else offer();
})();
// A deal saved is answered with a step (templates/tracker/game.html, "step"):
// the new row added first in the history. A board fetched just before the
// answer came (another phone's poll, the pushed update) may have it already:
// the row is added once.
document.addEventListener("htmx:oobBeforeSwap", (event) => {
  const target = event.detail.target;
  const fresh = event.detail.fragment;
  if (!target || target.id !== "history-rows" || !fresh || !fresh.querySelector) return;
  const row = fresh.querySelector("tr[id]");
  if (row && document.getElementById(row.id)) event.detail.shouldSwap = false;
});
// A poll's answer that crossed a change made on this phone is not shown: the
// change's own answer brings the board, and the next poll anything newer. htmx
// looks for a poll's out-of-band parts beside the board that sent it, so once
// that board or the deal form was swapped out it would find none of them
// (and log each, or the retargeted save's "#board", as an error).
const dropSwap = (event) => { event.detail.shouldSwap = false; };
// A board swapped out: the answer to its poll still on its way goes nowhere.
document.addEventListener("htmx:beforeCleanupElement", (event) => {
  if (event.target.id === "board") event.target.addEventListener("htmx:beforeSwap", dropSwap);
});
// A form's change still on its way: the poll's answer would swap out that form
// before the change's answer comes back to it.
document.addEventListener("htmx:beforeSwap", (event) => {
  const from = event.detail.requestConfig && event.detail.requestConfig.elt;
  if (from && from.id === "board" && document.querySelector("form.htmx-request")) dropSwap(event);
});
// A refused form: bring its first message into view.
document.addEventListener("htmx:afterSwap", (event) => {
  const status = event.detail.xhr && event.detail.xhr.status;
  if (status !== 422 && status !== 409) return;
  // The summary by the Start button first (the thumb is there), else the first message.
  const places = ["#start-errors", "#conflict", ".deal-form .callout.warn", ".deal-form .error", ".error"];
  for (const place of places) {
    const first = document.querySelector(place);
    if (first) { first.scrollIntoView({ block: "center" }); break; }
  }
});
// Keep the screen awake while a game is being scored (the Screen Wake Lock
// API where the browser has it; nothing happens where it has not).
(() => {
  if (!("wakeLock" in navigator) || !document.getElementById("board")) return;
  let lock = null;
  const ask = () => {
    if (document.visibilityState !== "visible" || lock || !document.querySelector("#board[hx-trigger]")) return;
    navigator.wakeLock.request("screen").then((got) => {
      lock = got;
      got.addEventListener("release", () => { lock = null; });
    }, () => {});
  };
  document.addEventListener("visibilitychange", ask);
  document.addEventListener("htmx:afterSettle", () => {
    if (lock && !document.querySelector("#board[hx-trigger]")) lock.release().catch(() => {});
    else ask();
  });
  ask();
})();
// An edit or split opened in place closes without a page load.
document.addEventListener("click", (event) => {
  const close = event.target.closest("[data-close-slot]");
  const slot = document.getElementById("change-slot");
  if (!close || !slot || !slot.contains(close)) return;
  event.preventDefault();
  slot.replaceChildren();
});
// "Keep it" closes a confirmation without doing anything.
document.addEventListener("click", (event) => {
  const keep = event.target.closest("[data-close-details]");
  if (!keep) return;
  const details = keep.closest("details");
  if (details) details.open = false;
});
// ---------------------------------------------------------------------------
// Pushed updates (tracker/live/). A game screen's board, a view
// link's and a table page carry data-stream: the URL of a stream (Server-Sent
// Events) whose every event is "the game (or table) is at revision N". When N
// is not the revision shown (data-revision), the page fetches the part it
// already knows how to fetch: the board's own hx-get (answered 204 when
// nothing changed), the table's part. While the stream is open the board does
// not poll; while it is not (opening, lost, a proxy that buffers it, no
// EventSource) the board polls every 2 s as it always did, so the offline
// notice and its recovery work as before. An "event: poll" (the server's fan-out
// is down) keeps the stream open and the board polling until a plain event.
// A view link's stream (data-stream-sends-board) follows each new revision with
// an "event: board", the part the board would fetch: it is swapped in as htmx
// swaps a fetched one, and only if it is not there within BOARD_WITHIN_MS is the
// board fetched. Without JavaScript nothing changes.
(() => {
  if (!window.EventSource || !window.htmx) return; // the poll in the page does it all
  const POLL = "every 2s";
  const PUSHED = "revision-moved"; // the event the board's hx-trigger waits for
  const OPEN_WITHIN_MS = 10000; // no first event by then: this stream does not get through
  const BOARD_WITHIN_MS = 1500; // a view link's board not sent by then: it is fetched
  let boardWait = null;
  let source = null;
  let streaming = false; // the first event came and nothing failed since
  let latest = null; // the revision the stream said last
  let failures = 0;
  let reopen = null;
  let watchdog = null;
  const holder = () => document.querySelector("[data-stream]");
  // The board polls, or waits for the stream's word: its hx-trigger, set up again by htmx.
  const trigger = (value) => {
    const board = document.getElementById("board");
    if (!board || !board.hasAttribute("data-stream") || board.getAttribute("hx-trigger") === value) return;
    board.setAttribute("hx-trigger", value);
    htmx.process(board);
  };
  // Fetch the shown part if the stream said another revision (or the page says
  // it is offline: the fetch that succeeds brings it back online).
  let waitingForTyping = false;
  const fetchIfMoved = () => {
    const shown = holder();
    if (!shown || latest === null) return;
    const offline = document.documentElement.classList.contains("offline");
    if (shown.dataset.revision === latest && !offline) return;
    // A change of this phone's is on its way: its answer brings the new part,
    // and the htmx:afterSettle below looks again.
    if (document.querySelector("form.htmx-request, #board.htmx-request, #table.htmx-request")) return;
    if (shown.id === "board") {
      htmx.trigger(shown, PUSHED);
      return;
    }
    // A table page: its part afresh, unless someone is typing in it (then when they leave the box).
    const typing = document.activeElement;
    if (typing && shown.contains(typing) && typing.matches("input:not([type=hidden]), select, textarea")) {
      waitingForTyping = true;
      return;
    }
    htmx.ajax("GET", location.pathname + location.search, { source: shown, target: shown, swap: "outerHTML" });
  };
  const close = () => {
    clearTimeout(watchdog);
    if (source) source.close();
    source = null;
    streaming = false;
  };
  const fail = () => {
    close();
    trigger(POLL); // the poll carries on while the stream is away
    failures += 1;
    // Again later, spread out: 1-3 s, then doubling, at most 5 minutes.
    const wait = Math.min(300, 2 ** failures) * (500 + Math.random() * 1000);
    clearTimeout(reopen);
    reopen = setTimeout(open, wait);
  };
  function open() {
    clearTimeout(reopen);
    const shown = holder();
    if (!shown || document.visibilityState === "hidden") return;
    const url = new URL(shown.dataset.stream, location.href).href;
    if (source && source.url === url) return;
    close();
    source = new EventSource(url);
    watchdog = setTimeout(fail, OPEN_WITHIN_MS);
    let hello = true; // the stream's first event: the revision when it opened, no board after it
    source.onmessage = (event) => {
      clearTimeout(watchdog);
      document.dispatchEvent(new Event("tracker:server-reached")); // the offline notice goes
      failures = 0;
      streaming = true;
      latest = event.data;
      trigger(PUSHED);
      clearTimeout(boardWait);
      if (!hello && holder().hasAttribute("data-stream-sends-board")) {
        boardWait = setTimeout(fetchIfMoved, BOARD_WITHIN_MS);
      } else {
        fetchIfMoved();
      }
      hello = false;
    };
    source.addEventListener("board", (event) => {
      clearTimeout(boardWait);
      const board = document.getElementById("board");
      const sent = event.data.match(/data-revision="(\d+)"/);
      if (!board || !board.hasAttribute("data-stream-sends-board")) return;
      if (!sent || Number(sent[1]) <= Number(board.dataset.revision)) return;
      htmx.swap(board, event.data, { swapStyle: "outerHTML" }, { select: "#board" });
      // The deals below it once the board is drawn: what a family reads first
      // comes first. Not if a newer board came meanwhile: its deals come with it.
      requestAnimationFrame(() => setTimeout(() => {
        const shown = document.getElementById("board");
        const history = document.getElementById("history");
        if (!shown || !history || shown.dataset.revision !== sent[1]) return;
        htmx.swap(history, event.data, { swapStyle: "outerHTML" }, { select: "#history" });
      }));
    });
    // The server hears no changes for now (its Redis is down): the stream stays
    // open and the board polls until the stream's next plain event.
    source.addEventListener("poll", (event) => {
      clearTimeout(watchdog);
      failures = 0;
      streaming = false;
      latest = event.data;
      trigger(POLL);
      fetchIfMoved();
    });
    // Any error (the server restarting, the network gone, a 404): this page
    // opens the stream again itself, later, and polls meanwhile.
    source.onerror = fail;
  }
  // A new board or table part came in: it polls again as the server wrote it,
  // so it is told to wait for the stream if the stream is open; the stream
  // follows the part (a finished game's board has no stream: it is closed).
  document.addEventListener("htmx:afterSettle", () => {
    const shown = holder();
    if (!shown) {
      close();
      return;
    }
    if (!source || source.url !== new URL(shown.dataset.stream, location.href).href) {
      open();
      return;
    }
    if (streaming) trigger(PUSHED);
    fetchIfMoved();
  });
  // A fetch the stream asked for could not reach the server: the network is
  // gone, whatever the stream says. Poll (the offline notice comes and goes
  // with the poll) until the stream is opened again; at once when the phone
  // says it is back online.
  document.addEventListener("htmx:sendError", () => {
    if (source) fail();
  });
  // Back online: the stream is opened anew (one kept through the outage may
  // be dead without a word); its first event fetches the part if it moved.
  window.addEventListener("online", () => {
    failures = 0;
    close();
    open();
  });
  document.addEventListener("focusout", () => {
    if (!waitingForTyping) return;
    waitingForTyping = false;
    setTimeout(fetchIfMoved, 0); // once the focus has moved on
  });
  // Phones end a hidden page's connections without a word: the stream is closed
  // while the page is hidden, and opened again, a moment apart from the other
  // phones, when it shows (its first event says whether anything changed).
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      clearTimeout(reopen);
      close();
    } else {
      failures = 0;
      clearTimeout(reopen);
      reopen = setTimeout(open, Math.random() * 1000);
    }
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", open);
  else open();
})();
// The theme switch (templates/theme_switch.html) at once, without the form's
// round trip: the choice goes in the cookie the server reads (kept a year, as
// the language's), so the next page is painted in it from its first frame. The
// browser's bar and the installed app's manifest follow. A page kept for
// offline use was served with the theme of its day: it takes this phone's
// choice when it opens.
(() => {
  const root = document.documentElement;
  const phoneDark = window.matchMedia("(prefers-color-scheme: dark)");
  const chosen = () => {
    const found = document.cookie.match(/(?:^|;\s*)theme=(light|dark)(?:;|$)/);
    return found ? found[1] : "";
  };
  // The charts are SVG images, which cannot read the page's colours: each is
  // asked for in the theme (templates/tracker/chart_img.html). A chosen theme
  // drops the <picture>'s source for the phone's dark, so the <img> decides.
  const charts = (theme, dark) => {
    for (const img of document.querySelectorAll("img.themed-chart")) {
      const picture = img.closest("picture");
      if (theme && picture) for (const source of picture.querySelectorAll("source")) source.remove();
      if (picture && picture.querySelector("source")) continue; // as the phone: it chooses
      const url = new URL(img.getAttribute("src"), location.href);
      const want = dark ? "dark" : "light";
      if (url.searchParams.get("theme") === want) continue;
      url.searchParams.set("theme", want);
      img.src = url.pathname + url.search;
    }
  };
  const apply = (theme) => {
    if (theme) root.dataset.theme = theme;
    else delete root.dataset.theme;
    for (const meta of document.querySelectorAll("meta[name=theme-color][data-theme]")) {
      const own = meta.dataset.theme;
      meta.media = !theme ? `(prefers-color-scheme: ${own})` : theme === own ? "all" : "not all";
    }
    const manifest = document.querySelector("link[rel=manifest][data-dark]");
    const dark = theme === "dark" || (!theme && phoneDark.matches);
    if (manifest) manifest.href = dark ? manifest.dataset.dark : manifest.dataset.light;
    charts(theme, dark);
    for (const button of document.querySelectorAll(".theme button[name=theme]")) {
      button.setAttribute("aria-pressed", String(button.value === (theme || "auto")));
    }
  };
  document.addEventListener("click", (event) => {
    const button = event.target.closest(".theme button[name=theme]");
    if (!button) return;
    event.preventDefault();
    const theme = ["light", "dark"].includes(button.value) ? button.value : "";
    const secure = location.protocol === "https:" ? "; secure" : "";
    const age = theme ? 365 * 24 * 60 * 60 : 0;
    document.cookie = `theme=${theme}; path=/; max-age=${age}; samesite=lax${secure}`;
    apply(theme);
  });
  phoneDark.addEventListener("change", () => apply(chosen()));
  apply(chosen());
})();
