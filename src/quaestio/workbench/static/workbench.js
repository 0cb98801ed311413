// quaestio workbench: the few interactions the server-rendered pages need. No framework, no
// build step. Values from the tables are always put on the page as text (textContent), and
// the HTML fragments the server returns are escaped by its templates.
"use strict";

const BASE = document.body.dataset.base || "";

async function post(path, body) {
  const response = await fetch(BASE + path, {
    method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body || {}), credentials: "same-origin",
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {message: response.statusText}; }
  return {status: response.status, data};
}

function text(el, value) { if (el) el.textContent = value == null ? "" : String(value); }

function detail(data) {
  if (data && typeof data.detail === "string") return data.detail;
  return (data && data.message) || "request failed";
}

// Put the failure cases of an operation next to their fields; the rest in `general`.
function showFailures(root, failures, general) {
  root.querySelectorAll(".field-error").forEach((el) => text(el, ""));
  root.querySelectorAll(".invalid").forEach((el) => el.classList.remove("invalid"));
  const rest = [];
  for (const f of failures || []) {
    const slot = f.column && root.querySelector(`.field-error[data-for="${CSS.escape(f.column)}"]`);
    if (slot && (f.op === 0 || f.op == null)) {
      text(slot, (slot.textContent ? slot.textContent + "; " : "") + f.reason);
      const input = root.querySelector(`[name="${CSS.escape(f.column)}"]`);
      if (input) input.classList.add("invalid");
    } else {
      rest.push(`${f.source || f.table || ""}${f.row ? " line " + f.row : ""}` +
                `${f.column ? " (" + f.column + "=" + (f.value ?? "") + ")" : ""}: ${f.reason}`);
    }
  }
  text(general, rest.join("\n"));
}

function values(root) {
  const out = {};
  root.querySelectorAll("input[name], select[name], textarea[name]").forEach((el) => {
    out[el.name] = el.value;
  });
  return out;
}

function debounce(fn, ms) {
  let timer = null;
  return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), ms); };
}

// ---- the row editor ---------------------------------------------------------------------
function initEditor() {
  const form = document.getElementById("row-form");
  if (!form) return;
  const general = document.getElementById("general-error");
  const status = document.getElementById("check-status");
  const table = form.dataset.table;
  const isNew = form.dataset.new === "1";
  const op = (action) => {
    const o = {table, action: action || (isNew ? "add" : "update"), values: values(form)};
    if (!isNew) { o.key = JSON.parse(form.dataset.key); o.version = form.dataset.version; }
    if (o.action === "delete") delete o.values;
    return o;
  };
  let checks = 0;
  const check = async () => {
    const mine = ++checks;
    text(status, "checking…");
    const {status: code, data} = await post("/api/validate", {ops: [op()]});
    if (mine !== checks) return;  // a later keystroke's check supersedes this one
    if (code !== 200) { text(status, detail(data)); return; }
    showFailures(form, data.failures, general);
    const conflicts = (data.conflicts || []).length;
    text(status, data.ok ? "valid" : (conflicts ? "this row changed since you opened it" :
                                      `${data.failures.length} problem(s)`));
    form.classList.toggle("has-errors", !data.ok);
  };
  form.addEventListener("input", debounce(check, 250));
  form.addEventListener("change", debounce(check, 50));

  const tryBtn = document.getElementById("try-btn");
  tryBtn && tryBtn.addEventListener("click", async () => {
    const out = document.getElementById("try-result");
    text(out, "parsing…");
    const question = document.getElementById("try-question").value;
    const {status: code, data} = await post("/api/try", {ops: [op()], question});
    if (code !== 200) { text(out, detail(data)); return; }
    if (!data.ok) { text(out, "fix the problems above first"); showFailures(form, data.failures, general); return; }
    out.innerHTML = data.html;  // escaped by the server's template
  });
  document.getElementById("try-question")?.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter") { ev.preventDefault(); tryBtn.click(); }
  });

  const previewBtn = document.getElementById("preview-btn");
  previewBtn && previewBtn.addEventListener("click", async () => {
    const out = document.getElementById("preview-result");
    text(out, "re-parsing…");
    const choice = document.querySelector('input[name="qset"]:checked');
    const questions = choice && choice.value === "set" ? "set" :
      document.getElementById("preview-questions").value;
    const {status: code, data} = await post("/api/preview", {ops: [op()], questions});
    if (code !== 200) { text(out, detail(data)); return; }
    if (!data.ok) { text(out, "fix the problems above first"); showFailures(form, data.failures, general); return; }
    out.innerHTML = data.html;
  });

  const saveStatus = document.getElementById("save-status");
  const conflictBox = document.getElementById("conflict");
  const save = async (action) => {
    text(saveStatus, "saving…");
    conflictBox.hidden = true;
    const why = document.getElementById("why").value;
    const {status: code, data} = await post("/api/save", {ops: [op(action)], why});
    if (code === 200) {
      const change = data.change;
      if (action === "delete") { window.location.href = `${BASE}/rows/${table}`; return; }
      form.dataset.key = JSON.stringify(change.ops[0].key);
      form.dataset.version = data.versions[0];
      text(document.getElementById("row-version"), data.versions[0]);
      saveStatus.textContent = "";
      const link = document.createElement("a");
      link.href = `${BASE}/changes/${change.id}`;
      link.textContent = `saved as change #${change.id}`;
      saveStatus.appendChild(link);
      saveStatus.classList.add("saved");
      if (isNew) {
        window.location.href = `${BASE}/rows/${table}/edit?key=` +
          encodeURIComponent(JSON.stringify(change.ops[0].key));
      }
    } else if (code === 409) {
      text(saveStatus, data.message);
      showConflict(conflictBox, data.conflicts || []);
    } else if (code === 422) {
      text(saveStatus, data.message);
      showFailures(form, data.failures, general);
    } else {
      text(saveStatus, detail(data));
    }
  };
  document.getElementById("save-btn")?.addEventListener("click", () => save());
  document.getElementById("delete-btn")?.addEventListener("click", () => save("delete"));
}

function showConflict(box, conflicts) {
  box.replaceChildren();
  for (const c of conflicts) {
    const h = document.createElement("h3");
    const change = c.change;
    h.textContent = change ? `Changed by ${change.who} at ${change.when} (change #${change.id}` +
      `${change.why ? ": " + change.why : ""})` : "Changed outside the workbench";
    box.appendChild(h);
    const tableEl = document.createElement("table");
    tableEl.className = "grid";
    const head = tableEl.insertRow();
    for (const label of ["column", "theirs (on disk now)", "yours"]) {
      const th = document.createElement("th"); th.textContent = label; head.appendChild(th);
    }
    const current = c.current || {};
    const yours = c.yours || {};
    const cols = [...new Set([...Object.keys(current), ...Object.keys(yours)])];
    for (const col of cols) {
      const tr = tableEl.insertRow();
      const a = current[col] ?? "", b = yours[col] ?? "";
      if (String(a) !== String(b)) tr.className = "changed";
      for (const v of [col, c.current ? a : "(row removed)", b]) tr.insertCell().textContent = v;
    }
    box.appendChild(tableEl);
  }
  const reload = document.createElement("button");
  reload.type = "button";
  reload.textContent = "Reload their version";
  reload.addEventListener("click", () => window.location.reload());
  box.appendChild(reload);
  box.hidden = false;
}

// ---- the candidates queue ---------------------------------------------------------------
function initQueue() {
  const queue = document.getElementById("queue");
  if (!queue) return;
  const status = document.getElementById("queue-status");
  const cards = () => [...queue.querySelectorAll("article.cand")];
  let current = null;
  const select = (card) => {
    if (!card) return;
    if (current) current.classList.remove("current");
    current = card;
    card.classList.add("current");
    card.focus({preventScroll: true});
    card.scrollIntoView({block: "nearest"});
  };
  const open = (card) => ["pending", "deferred"].includes(card.dataset.state);
  const next = (from, step) => {
    const all = cards();
    let i = all.indexOf(from);
    for (let n = 0; n < all.length; n++) {
      i = (i + step + all.length) % all.length;
      if (open(all[i])) return all[i];
    }
    return null;
  };
  const decide = async (card, decision) => {
    if (queue.dataset.canEdit !== "1") { text(status, "read only: an analyst key is needed"); return; }
    const cid = card.dataset.cid;
    const general = card.querySelector(".general-error");
    text(status, `${decision} ${cid}…`);
    const {status: code, data} = await post(`/api/candidates/${cid}/${decision}`,
                                            {values: values(card.querySelector(".fields"))});
    if (code === 200) {
      card.dataset.state = data.state;
      card.className = `cand state-${data.state}`;
      text(card.querySelector(".state"), data.state);
      showFailures(card, [], general);
      text(status, data.change ? `${data.state}: change #${data.change.id}` : data.state);
      card.dataset.change = data.change ? data.change.id : "";
      const to = next(card, 1);
      if (to && to !== card) select(to); else { select(card); text(status, "queue done"); }
    } else if (code === 422) {
      showFailures(card, data.failures, general);
      text(status, data.message);
      select(card);
    } else {
      text(status, detail(data));
      text(general, detail(data));
    }
  };
  queue.addEventListener("click", (ev) => {
    const card = ev.target.closest("article.cand");
    if (card && card !== current) select(card);
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const inField = ev.target.matches("input, select, textarea");
    if (inField) {
      if (ev.key === "Enter" && current && current.contains(ev.target)) {
        ev.preventDefault(); decide(current, "admit");
      } else if (ev.key === "Escape") { ev.target.blur(); current && current.focus(); }
      return;
    }
    if (!current) return;
    const actions = {
      j: () => select(next(current, 1) || current), k: () => select(next(current, -1) || current),
      a: () => decide(current, "admit"), r: () => decide(current, "reject"),
      d: () => decide(current, "defer"),
      e: () => current.querySelector(".fields input, .fields select")?.focus(),
    };
    if (actions[ev.key]) { ev.preventDefault(); actions[ev.key](); }
  });
  select(cards().find(open) || cards()[0]);
}

// ---- the change log ---------------------------------------------------------------------
function initLog() {
  document.querySelectorAll(".revert-btn").forEach((btn) => {
    btn.addEventListener("click", async () => {
      const row = btn.closest(".revert");
      const out = row.querySelector(".status");
      text(out, "reverting…");
      const {status: code, data} = await post(`/api/changes/${btn.dataset.id}/revert`,
                                              {why: row.querySelector(".revert-why").value});
      if (code === 200) { window.location.href = `${BASE}/changes`; return; }
      text(out, code === 409 && data.conflicts ?
        `${data.message} (${data.conflicts.length} row(s) changed since)` : detail(data));
    });
  });
}

initEditor();
initQueue();
initLog();
