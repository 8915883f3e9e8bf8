// pyramid-board: the page's only script. No framework, no build step.
// Every form works without it; with it, the page updates live (Server-Sent Events), the
// virtual board and the game buttons act in place, and the PIN is asked for in a dialog.
"use strict";

(function () {
  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));
  const messages = $("#messages") ? $("#messages").dataset : {};

  // -- talking to the server --------------------------------------------------------------

  function csrfToken() {
    const meta = $('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function setCsrfToken(token) {
    if (!token) return;
    const meta = $('meta[name="csrf-token"]');
    if (meta) meta.content = token;
    $$('input[name="csrf_token"]').forEach((input) => { input.value = token; });
  }

  let toastTimer = 0;
  function toast(text) {
    const box = $("#toast");
    if (!box || !text) return;
    box.textContent = text;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 5000);
  }

  async function send(url, body) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await response.json(); } catch (e) { data = {}; }
    return { response, data };
  }

  // POST JSON. When the server wants the PIN, ask for it; once it is given, the tap that
  // asked is carried out (the server checks it against the board as it is then).
  async function post(url, body) {
    let result;
    try {
      result = await send(url, body);
      if (result.response.status === 403 && result.data.need_pin) {
        if (!(await askPin())) return null;
        result = await send(url, body);
      }
    } catch (e) {
      toast(messages.offline);
      return null;
    }
    const { response, data } = result;
    if (!response.ok || data.ok === false) {
      toast(data.error || messages.error);
      return null;
    }
    return data;
  }

  // -- the PIN dialog -----------------------------------------------------------------------

  // Unlocked: the page looks it at once (the Lock button, no "needs the PIN" notes, no
  // PIN fields in forms), as it would after a reload.
  function showUnlocked() {
    document.body.dataset.admin = "1";
    $$("[data-admin-only]").forEach((el) => { el.hidden = false; });
    $$("[data-locked-only]").forEach((el) => {
      el.hidden = true;
      $$("input", el).forEach((input) => { input.disabled = true; });
    });
  }

  function askPin() {
    const dialog = $("#pin-dialog");
    const form = $("#pin-form");
    const input = $("#pin-input");
    const error = $("#pin-error");
    if (!dialog || typeof dialog.showModal !== "function") {
      window.location.href = "/unlock?next=" + encodeURIComponent(location.pathname);
      return Promise.resolve(false);
    }
    return new Promise((resolve) => {
      error.hidden = true;
      input.value = "";
      const finish = (ok) => {
        form.removeEventListener("submit", onSubmit);
        dialog.removeEventListener("close", onClose);
        if (dialog.open) dialog.close();
        resolve(ok);
      };
      const onClose = () => finish(false);
      const onSubmit = async (event) => {
        event.preventDefault();
        let result;
        try {
          result = await send(document.body.dataset.unlockUrl, { pin: input.value });
        } catch (e) {
          error.textContent = messages.offline;
          error.hidden = false;
          return;
        }
        if (result.response.ok) {
          setCsrfToken(result.data.csrf_token);
          showUnlocked();
          finish(true);
          return;
        }
        error.textContent = result.data.error || messages.error;
        error.hidden = false;
        input.select();
      };
      form.addEventListener("submit", onSubmit);
      dialog.addEventListener("close", onClose);
      $$("[data-close]", dialog).forEach((b) => { b.onclick = () => finish(false); });
      dialog.showModal();
      input.focus();
    });
  }

  // -- live updates -------------------------------------------------------------------------

  // -- sound ------------------------------------------------------------------------------
  // The board's tunes (controller/hardware/port.py TUNES), played with Web Audio: your turn,
  // a bonus pearl owed, a wrong cell, the winner. Nothing is fetched; a switch mutes it and
  // the browser remembers the choice.
  const MUTE_KEY = "pyramid-board.muted";
  let audio = null;

  function muted() {
    try { return window.localStorage.getItem(MUTE_KEY) === "1"; } catch (e) { return false; }
  }

  function setMuted(on) {
    try { window.localStorage.setItem(MUTE_KEY, on ? "1" : "0"); } catch (e) { /* private mode */ }
    $$("[data-mute]").forEach((b) => {
      b.setAttribute("aria-checked", on ? "false" : "true");  // checked: sounds play
      $$("[data-when]", b).forEach((span) => { span.hidden = (span.dataset.when === "off") !== on; });
    });
  }

  // Browsers start a page's audio suspended until someone taps it (an autoplay rule): the
  // first sound would be lost without a word. Say so until the first tap unlocks it.
  function unlockAudio() {
    const Context = window.AudioContext || window.webkitAudioContext;
    const hints = $$("[data-sound-blocked]");
    if (!Context || !hints.length) return;
    audio = audio || new Context();
    const show = () => {
      const blocked = audio.state !== "running" && !muted();
      hints.forEach((hint) => { hint.hidden = !blocked; });
    };
    const resume = () => { if (audio.state !== "running") audio.resume().then(show, show); };
    audio.addEventListener("statechange", show);
    ["pointerdown", "keydown", "touchend"].forEach((type) => {
      document.addEventListener(type, resume, { capture: true, passive: true });
    });
    document.addEventListener("click", show);  // the mute switch changes what to say
    show();
  }

  function play(tunes, name) {
    const notes = tunes[name];
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!notes || muted() || !Context) return;
    audio = audio || new Context();
    if (audio.state === "suspended") audio.resume();
    let at = audio.currentTime + 0.02;
    notes.forEach(([hz, ms]) => {
      const end = at + ms / 1000;
      if (hz > 0) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "triangle";
        osc.frequency.value = hz;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.25, at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, end);
        osc.connect(gain).connect(audio.destination);
        osc.start(at);
        osc.stop(end + 0.02);
      }
      at = end;
    });
  }

  function swap(id, html) {
    const region = document.getElementById(id);
    if (!region || region.dataset.html === html) return;
    // Keep keyboard focus on the same cell or button across the redraw.
    const active = document.activeElement;
    const focusId = active && region.contains(active) ? active.id : "";
    region.innerHTML = html;
    region.dataset.html = html;
    if (focusId) {
      const again = document.getElementById(focusId);
      if (again) again.focus({ preventScroll: true });
    }
  }

  // The bar with the turn and what to do, at the foot of the screen while the words
  // beside the board (what to do now, or whose turn it is) are out of sight.
  function turnBar(root) {
    const bar = $("#live-bar", root);
    const status = $("#live-status", root);
    if (!bar || !status) return () => {};
    let queued = false;
    const inView = (el) => {
      if (!el) return false;
      const box = el.getBoundingClientRect();
      // A short sentence must be seen whole (it may sit at the foot of the screen, right
      // under the board); of a long list, its first lines are enough.
      const first = Math.min(box.height, 120);
      return box.top >= 0 && box.top + first <= window.innerHeight - bar.offsetHeight;
    };
    const update = () => {
      queued = false;
      const now = $(".status-now .message, .status-now .todo, .status-now", status);
      const head = $(".status-head .headline", status);
      const seen = now && now.textContent.trim() ? inView(now) : inView(head);
      bar.hidden = !bar.textContent.trim() || seen;
    };
    const soon = () => {
      if (!queued) { queued = true; window.requestAnimationFrame(update); }
    };
    window.addEventListener("scroll", soon, { passive: true });
    window.addEventListener("resize", soon);
    update();
    return soon;
  }

  // "Show a good cell" answers where the eyes are: once the hint comes, its ringed cell
  // is brought to the middle of the screen (the sentence is beside the board, and the bar
  // at the foot of the screen says it too).
  let revealHint = false;
  function showHint() {
    const ring = $("#live-board .marks circle.hint");
    if (!ring) return;
    revealHint = false;
    const cell = document.getElementById("cell-" + ring.closest(".marks").dataset.pos);
    (cell || ring).scrollIntoView({ block: "center" });
  }

  function connect(root) {
    const barChanged = turnBar(root);
    const banner = $("#connection");
    let lostTimer = 0;
    let wasLost = false;
    let tunes = {};
    try { tunes = JSON.parse(root.dataset.tunes || "{}"); } catch (e) { tunes = {}; }
    let cues = Number(root.dataset.cues || 0);
    const source = new EventSource(root.dataset.stream);
    source.addEventListener("snapshot", (event) => {
      let update;
      try { update = JSON.parse(event.data); } catch (e) { return; }
      const snap = update.snapshot || {};
      root.dataset.version = update.version;
      root.dataset.game = snap.game || "";
      root.dataset.status = snap.status || "";
      Object.entries(update.html || {}).forEach(([id, html]) => swap(id, html));
      // Shared fragments carry no session token: give this page's forms its own.
      setCsrfToken(csrfToken());
      if (snap.cue && snap.cue.count > cues) {
        cues = snap.cue.count;
        play(tunes, snap.cue.sound);
      }
      if (revealHint) showHint();
      barChanged();
      root.dispatchEvent(new CustomEvent("snapshot", { detail: update }));
    });
    source.addEventListener("open", () => {
      clearTimeout(lostTimer);
      root.dataset.connected = "1";
      if (wasLost && banner) {
        banner.textContent = banner.dataset.back;
        banner.classList.remove("warn");
        setTimeout(() => { if (root.dataset.connected === "1") banner.hidden = true; }, 1500);
      }
      wasLost = false;
    });
    source.addEventListener("error", () => {
      root.dataset.connected = "0";
      // EventSource reconnects by itself; say so only if it takes more than a moment.
      clearTimeout(lostTimer);
      lostTimer = setTimeout(() => {
        if (root.dataset.connected === "1" || !banner) return;
        wasLost = true;
        banner.textContent = banner.dataset.lost;
        banner.classList.add("warn");
        banner.hidden = false;
      }, 1200);
    });
    window.addEventListener("pagehide", () => source.close());
  }

  // -- the virtual board and the game buttons ------------------------------------------------

  // A double tap is one tap: the second click of a double click or double tap (its
  // detail is 2: the browser saw two taps on one spot in quick succession), or a second
  // press of the same place or button while the first is on its way, is not a second move
  // (it would lift the pearl just placed). The board is redrawn between the two, so
  // presses of the board are kept by name; a game button's by its form.
  const pressesByName = new Map();
  const formPresses = new WeakMap();

  async function once(key, act) {
    const presses = typeof key === "string" ? pressesByName : formPresses;
    if (presses.get(key)) return;
    presses.set(key, true);
    try {
      await act();
    } finally {
      presses.delete(key);
    }
  }

  function virtualPress(el) {
    const name = el.dataset.virtual;
    return once(name, () => post("/api/virtual", { name, action: el.dataset.action || "toggle" }));
  }

  document.addEventListener("click", (event) => {
    const el = event.target.closest("[data-virtual]");
    if (el) {
      event.preventDefault();
      virtualPress(el);
    }
  });

  // Before any other listener sees it: the second click of a double click or double tap
  // on the board or a game button goes nowhere.
  document.addEventListener("click", (event) => {
    if (event.detail >= 2 && event.target.closest("form[data-command] button, [data-virtual]")) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  document.addEventListener("dblclick", (event) => {
    if (event.target.closest("[data-virtual]")) event.preventDefault();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const el = event.target.closest('[data-virtual][role="button"]');
    if (el) {
      event.preventDefault();
      virtualPress(el);
    }
  });

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (form.dataset.command) {
      event.preventDefault();
      if (form.dataset.confirm && !window.confirm(messages.confirmAbort)) return;
      const command = form.dataset.command;
      await once(form, async () => {
        const done = await post("/api/command/" + command, {});
        if (done && command === "hint") { revealHint = true; showHint(); }
      });
    } else if (form.dataset.api) {
      event.preventDefault();
      const body = {};
      new FormData(form).forEach((value, key) => {
        if (key !== "csrf_token") body[key] = value;
      });
      const data = await post(form.dataset.api, body);
      if (data && form.dataset.reload) window.location.reload();
    }
  });

  document.addEventListener("change", (event) => {
    const el = event.target;
    if (el.matches("select[data-autosubmit]")) el.form.submit();
  });

  // -- replay: step through a past game without reloading -------------------------------------

  function replay(root) {
    const range = $("input[type=range]", root);
    const output = $("output", root);
    const stage = $("#replay-stage");
    const last = Number(root.dataset.last);
    let step = Number(root.dataset.step);
    let pending = 0;

    async function go(to) {
      step = Math.max(0, Math.min(last, to));
      range.value = step;
      output.textContent = step + " / " + last;
      const ticket = ++pending;
      const url = root.dataset.fragment.replace("STEP", String(step));
      const response = await fetch(url, { credentials: "same-origin" });
      if (!response.ok || ticket !== pending) return;
      stage.innerHTML = await response.text();
      history.replaceState(null, "", "?step=" + step);
      $$("ol.moves li", root.parentElement).forEach((li) => {
        if (Number(li.dataset.step) === step) li.setAttribute("aria-current", "step");
        else li.removeAttribute("aria-current");
      });
    }

    $$("[data-step-by]", root).forEach((button) => {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        const by = button.dataset.stepBy;
        go(by === "first" ? 0 : by === "last" ? last : step + Number(by));
      });
    });
    range.addEventListener("input", () => go(Number(range.value)));
    // A move of the list opens its step in place: no reload to the top of the page. On a
    // wide screen the board is beside the list; on a phone the page goes to the board,
    // whose caption says the review's verdict, with the better cell ringed.
    document.addEventListener("click", async (event) => {
      const link = event.target.closest("ol.moves li[data-step] > a");
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      await go(Number(link.closest("li").dataset.step));
      const box = stage.getBoundingClientRect();
      if (box.top < 0 || box.top > window.innerHeight / 2) {
        stage.scrollIntoView({ block: "start" });
      }
    });
    document.addEventListener("keydown", (event) => {
      if (event.target.matches("input, select, textarea")) return;
      if (event.key === "ArrowLeft") go(step - 1);
      if (event.key === "ArrowRight") go(step + 1);
    });
  }

  // -- replay: the computer's review appears by itself once it is done -------------------------

  const REVIEW_POLL_MS = 2000;

  function awaitReview(section) {
    if (!["working", "busy"].includes(section.dataset.review)) return;
    setTimeout(async () => {
      let next = null;
      try {
        // The current step (?step=N) keeps its mark in the list that comes back.
        const response = await fetch(section.dataset.refresh + location.search, {
          credentials: "same-origin",
        });
        if (response.ok) {
          const holder = document.createElement("div");
          holder.innerHTML = await response.text();
          next = holder.querySelector("#moves");
        }
      } catch (e) { /* offline for a moment: ask again */ }
      if (next && section.isConnected) {
        section.replaceWith(next);
        awaitReview(next);
      } else if (section.isConnected) {
        awaitReview(section);
      }
    }, REVIEW_POLL_MS);
  }

  // -- setup: show the fields of the chosen game ------------------------------------------------

  function setup(form) {
    const update = () => {
      const chosen = $("input[name=game]:checked", form) || { value: "", dataset: {} };
      const game = chosen.value || "";
      const seats = Number(($("select[name=seats]", form) || {}).value || 3);
      $$("[data-for-game]", form).forEach((el) => {
        const on = el.dataset.forGame.split(" ").includes(game);
        el.hidden = !on;
        $$("input, select", el).forEach((input) => { input.disabled = !on; });
      });
      // A game played by a fixed number says so on its radio button (data-seats).
      const count = chosen.dataset.seats ? Number(chosen.dataset.seats) : seats;
      $$("[data-seat]", form).forEach((row) => {
        const on = Number(row.dataset.seat) < count;
        row.hidden = !on;
        $$("input, select", row).forEach((input) => { input.disabled = !on; });
      });
      // Only seats that play can start.
      const starter = $("#first_seat", form);
      if (starter) {
        $$("option", starter).forEach((option) => {
          option.hidden = option.disabled = Number(option.value) >= count;
        });
        if (Number(starter.value) >= count) starter.value = "0";
      }
    };
    form.addEventListener("change", update);
    update();
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-mute]");
    if (button) setMuted(!muted());
  });

  // The Diagnostics page's sensor readings: asked for a few times a second while the
  // page is in view (the board answers each ask with one line of every reading).
  function levels(region) {
    const url = region.dataset.levels;
    let busy = false;
    setInterval(async () => {
      if (busy || document.hidden) return;
      busy = true;
      try {
        const answer = await fetch(url, { headers: { Accept: "text/html" } });
        if (answer.ok) swap(region.id, await answer.text());
      } catch (error) {
        // The next tick tries again (the Pi restarting, the network gone a moment).
      } finally {
        busy = false;
      }
    }, 250);
  }

  document.addEventListener("DOMContentLoaded", () => {
    setMuted(muted());
    unlockAudio();
    $$("[data-stream]").forEach(connect);
    $$("[data-replay]").forEach(replay);
    $$("#moves[data-refresh]").forEach(awaitReview);
    $$("form[data-setup]").forEach(setup);
    $$("[data-levels]").forEach(levels);
  });
})();
