// lab serve: a little plain JavaScript on top of pages that work without it.
// - forms marked data-swap="#id" post in the background and replace that element with the
//   server's HTML fragment (a click in a match answers without reloading the page);
// - selects marked data-reload re-draw the play form for another game or preset;
// - a job's progress (data-job) is polled until it ends; buttons marked data-when show in the
//   states they apply to;
// - copy buttons copy the [[patch]] TOML beside them.
"use strict";

function swapForms(root) {
  root.querySelectorAll("form[data-swap]").forEach((form) => {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const target = document.querySelector(form.dataset.swap);
      const body = new FormData(form, ev.submitter);
      form.querySelectorAll("button").forEach((b) => (b.disabled = true));
      try {
        const r = await fetch(form.action, {method: "POST", body, headers: {"X-Fragment": "1"}});
        const html = await r.text();
        if (r.headers.get("content-type", "").includes("json")) {
          const data = JSON.parse(html);
          showError(target, data.error || "the server refused the request");
          return;
        }
        const box = document.createElement("div");
        box.innerHTML = html;
        const fresh = box.firstElementChild;
        target.replaceWith(fresh);
        swapForms(fresh.parentElement);
        const log = document.getElementById("log");
        if (log) log.lastElementChild && log.lastElementChild.scrollIntoView({block: "nearest"});
      } catch (e) {
        showError(target, "the server did not answer (" + e + ")");
        form.querySelectorAll("button").forEach((b) => (b.disabled = false));
      }
    });
  });
}

function showError(target, line) {
  let p = target.querySelector(".error");
  if (!p) {
    p = document.createElement("p");
    p.className = "error";
    p.setAttribute("role", "alert");
    target.prepend(p);
  }
  p.textContent = "error: " + line;
}

function reloaders() {
  document.querySelectorAll("select[data-reload]").forEach((sel) => {
    sel.addEventListener("change", () => {
      const form = sel.form;
      const params = new URLSearchParams();
      for (const [k, v] of new FormData(form)) {
        if (typeof v !== "string") continue;
        if (sel.name === "game" && k !== "game") continue; // another game: its own defaults
        if (sel.name === "preset" && k.startsWith("rule_")) continue; // the preset's toggles
        params.set(k, v);
      }
      window.location = "/play?" + params.toString();
    });
  });
  document.querySelectorAll("select[data-autosubmit]").forEach((sel) => {
    sel.addEventListener("change", () => sel.form.submit());
  });
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

function showWhen(state) {
  document.querySelectorAll("[data-when]").forEach((el) => {
    el.hidden = !el.dataset.when.split(" ").includes(state);
  });
}

function pollJobs() {
  document.querySelectorAll("[data-job]").forEach((box) => {
    const id = box.dataset.job;
    const field = (name) => box.querySelector(`[data-field="${name}"]`);
    const ended = (s) => ["done", "failed", "interrupted"].includes(s);
    showWhen(box.dataset.state);
    if (ended(box.dataset.state)) return;
    const tick = async () => {
      let j;
      try {
        const r = await fetch(`/jobs/${id}.json`, {headers: {Accept: "application/json"}});
        j = await r.json();
      } catch (e) {
        setTimeout(tick, 2000);
        return;
      }
      if (j.error) { field("message").textContent = "error: " + j.error; return; }
      box.dataset.state = j.state;
      field("state").textContent = j.state;
      field("fill").style.width = ((j.fraction || 0) * 100).toFixed(1) + "%";
      field("counts").textContent = j.done != null ? `${fmt(j.done)} / ${fmt(j.total || 0)} games` : "";
      field("rate").textContent = j.rate ? `${fmt(j.rate)} games/s` : "";
      field("eta").textContent = j.eta && j.state === "running" ? `ETA ${fmt(j.eta)} s` : "";
      field("message").textContent = j.message || "";
      box.classList.toggle("failed", j.state === "failed");
      showWhen(j.state);
      if (!ended(j.state)) setTimeout(tick, 500);
    };
    tick();
  });
}

function copyButtons() {
  document.querySelectorAll("[data-copy]").forEach((b) => {
    b.addEventListener("click", async () => {
      const text = b.parentElement.querySelector("pre").textContent;
      try { await navigator.clipboard.writeText(text); b.textContent = "copied"; }
      catch (e) { b.textContent = "select and copy"; }
    });
  });
}

document.addEventListener("DOMContentLoaded", () => {
  swapForms(document);
  reloaders();
  pollJobs();
  copyButtons();
});
