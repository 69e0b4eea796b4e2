// The page of `muehle serve`: play, position editor and analysis.
// Plain JavaScript, no build step.  The server is the authority on the rules: the
// page keeps only the start position and the moves, asks /api/game for the state
// (legal moves, board as SVG, hints) and /api/play for the computer's reply, and
// uses the legal-move list only to tell at once which clicks make sense.
"use strict";

const S = {
  rulesets: [], colours: {}, rules: null,
  start: null,          // start position of the game (null: the empty board)
  moves: [],            // moves played, in notation
  human: "w",
  state: null,          // the last answer of /api/game or /api/play
  selected: null,       // the point of the stone chosen to move
  pending: null,        // moves that differ only in the stone they take
  busy: 0,
  said: new Set(),      // the computer's notes shown in this game (each once, as in the terminal)
  // ?seed=N in the address makes the computer's choices repeatable (tests, bug reports).
  seed: new URLSearchParams(window.location.search).get("seed"),
};
const E = { white: new Set(), black: new Set() };   // the position editor's stones

const $ = (id) => document.getElementById(id);
const MOVE_RE = /^([a-g][1-7])(?:-([a-g][1-7]))?(?:x([a-g][1-7]))?$/;
const COLOUR = { w: "White", b: "Black" };
const other = (side) => (side === "w" ? "b" : "w");

function parseMove(text) {
  const m = MOVE_RE.exec(text);
  return m ? { text, origin: m[2] ? m[1] : null, target: m[2] || m[1], take: m[3] || null } : null;
}

function valueText(value, plies) {
  if (value === null || value === undefined) return "?";
  return plies === null || plies === undefined ? value : `${value} in ${plies}`;
}

function turnsText(value, turns) {
  return valueText(value, turns) + (turns === null || turns === undefined ? "" : " turns");
}

function percentText(p) {
  const pc = (x) => `${(100 * x).toFixed(2)}%`;
  return `win ${pc(p.win)}, draw ${pc(p.draw)}, loss ${pc(p.loss)}`;
}

function setBusy(delta) {
  S.busy += delta;
  document.body.dataset.busy = S.busy > 0 ? "1" : "0";
}

async function api(path, body) {
  setBusy(1);
  try {
    const response = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  } finally {
    setBusy(-1);
  }
}

function say(id, text, error = false) {
  const el = $(id);
  el.textContent = text;
  el.classList.toggle("error", error);
}

// --- rule sets --------------------------------------------------------------------

async function loadRules() {
  const info = await api("/api/rules");
  S.colours = info.value_colours;
  S.rulesets = info.rule_sets;
  const select = $("rules");
  select.innerHTML = "";
  // Built rule sets first; the others offered too, marked, with their build command
  // shown where one is picked (the board plays them by the rules, without values).
  const groups = [["built", (r) => r.built > 0], ["not built", (r) => r.built === 0]];
  for (const [label, wanted] of groups) {
    const group = document.createElement("optgroup");
    group.label = label;
    for (const r of info.rule_sets.filter(wanted)) {
      const option = document.createElement("option");
      option.value = r.name;
      option.textContent = `${r.name} (${r.stones} stones`
        + (r.complete ? ")" : r.built ? `, ${r.built}/${r.pairs} pairs)` : ", not built)");
      group.appendChild(option);
    }
    if (group.children.length) select.appendChild(group);
  }
  select.value = info.default;
  S.rules = select.value;
  for (const level of info.levels) {
    const option = document.createElement("option");
    option.value = option.textContent = level;
    $("level").appendChild(option);
  }
  $("level").value = "perfect";
  showRulesInfo();
}

// What the picked rule set lacks, and the command that builds it (nothing when complete).
function showRulesInfo() {
  const box = $("rules-info");
  box.innerHTML = "";
  const r = S.rulesets.find((x) => x.name === S.rules);
  if (!r || r.complete) return;
  const line = document.createElement("div");
  line.className = "missing";
  line.dataset.rules = r.name;
  line.append(`${r.name}: ${r.status}. Build with: `);
  const code = document.createElement("code");
  code.textContent = r.build_command;
  line.append(code);
  box.appendChild(line);
}

// --- the board's marks --------------------------------------------------------------

// The best move for each point, in the server's order (best first): the key says which
// point a move belongs to (where it goes, where it starts, what it takes).
function bestBy(moves, key) {
  const best = new Map();
  for (const mv of moves) {
    const m = parseMove(mv.move);
    const point = key(m);
    if (point && !best.has(point)) best.set(point, mv);
  }
  return best;
}

function clearMarks(container) {
  for (const mark of container.querySelectorAll(".mark")) {
    mark.setAttribute("stroke", "none");
    mark.classList.remove("selected");
    mark.removeAttribute("data-value");
  }
  for (const label of container.querySelectorAll(".label")) label.textContent = "";
}

// A move's value in this game: under the quiet-ply rule where the server gives it (its
// value at the game's count, the plies to the next mill; under mixed placement, while
// stones are in hand, to the moving phase), else the plain value.
function gameValue(mv) {
  if (!mv.rule) return { value: mv.value, plies: mv.plies, to: "end" };
  if (mv.rule.dtz !== null) return { value: mv.rule.value, plies: mv.rule.dtz, to: "mill" };
  if (mv.rule.placing_plies !== undefined) {
    return { value: mv.rule.value, plies: mv.rule.placing_plies, to: "moving phase" };
  }
  return { value: mv.rule.value, plies: null, to: "end" };
}

function paintMarks(container, best) {
  for (const [point, mv] of best) {
    const mark = container.querySelector(`#mark-${point}`);
    const label = container.querySelector(`#label-${point}`);
    if (!mark) continue;
    const v = gameValue(mv);
    mark.setAttribute("stroke", S.colours[v.value]);
    mark.dataset.value = v.value;
    label.setAttribute("fill", S.colours[v.value]);
    label.textContent = v.plies === null ? "" : String(v.plies);
  }
}

// Which point a hint belongs to now: the target while placing or after choosing a
// stone, the stone to take while a mill waits, else the stone that moves.
function hintKey(state) {
  if (S.pending) return (m) => (S.pending.some((p) => p.text === m.text) ? m.take : null);
  if (state.hands[state.side] > 0) return (m) => m.target;
  if (S.selected) return (m) => (m.origin === S.selected ? m.target : null);
  return (m) => m.origin;
}

function fillMoveTable(table, moves, onClick) {
  table.innerHTML = "";
  for (const mv of moves) {
    const row = table.insertRow();
    row.dataset.move = mv.move;
    row.insertCell().textContent = mv.move;
    const cell = row.insertCell();
    const v = gameValue(mv);
    cell.textContent = mv.win !== undefined     // dice mill: the expected result
      ? percentText(mv) + (mv.replacement ? " (with the power)" : "")
      : mv.again !== undefined                  // Ceylonese mill: turns, and whether it keeps the turn
        ? turnsText(mv.value, mv.turns) + (mv.again ? ", moves again" : "")
      : mv.rule
        ? `${v.value}${v.plies === null ? "" : `, ${v.to} in ${v.plies}`} (${valueText(mv.value, mv.plies)} without the rule)`
        : valueText(mv.value, mv.plies);
    cell.className = v.value;
    if (onClick) row.addEventListener("click", () => onClick(mv.move));
  }
}

// --- play -----------------------------------------------------------------------------

function humanToMove() {
  const st = S.state;
  return st && st.game_over === null && st.side === S.human;
}

function render() {
  const st = S.state;
  const board = $("board");
  board.innerHTML = st.svg;
  board.dataset.ply = String(st.played.length);
  board.dataset.position = st.position;
  const you = COLOUR[S.human];
  say("status", `${st.phase}; you play ${you}, rules ${st.rules}. White ${st.on_board.w} on the board, `
      + `${st.hands.w} in hand; Black ${st.on_board.b} on the board, ${st.hands.b} in hand.`);
  if (st.result) {
    const verdict = st.winner === "draw" ? "Draw." : st.winner === S.human ? "You win!" : "You lose.";
    say("result", `Game over: ${st.result}. ${verdict}`);
  } else {
    say("result", "");
  }
  const rules = [];
  if (st.hands.w === 0 && st.hands.b === 0 && st.quiet_limit !== null) {
    rules.push(`${st.quiet_plies} of ${st.quiet_limit} plies without a mill (${st.quiet_limit} draw).`);
  }
  if (st.repetitions > 1) {
    rules.push(`This position has occurred ${st.repetitions} times (${st.repetition_limit} draw).`);
  }
  say("draw-rules", rules.join(" "));
  const d = st.dice;
  say("throw", !d ? "" : d.throw === null ? `Dice mill (${d.rule}): every stone is placed, no more dice.`
    : `${COLOUR[st.side]} throws ${d.throw.join(" ")}: ` + (!d.powered ? "no power."
      : d.targets.length ? `the power: a stone of ${COLOUR[other(st.side)]}'s mills may be replaced (${d.targets.join(" ")}).`
        : `the power, but ${COLOUR[other(st.side)]} has no mill.`));
  const c = st.ceylonese;
  say("variant", !c ? "" : `Ceylonese mill (${c.rule}): ${c.words}.`
    + (c.again && st.game_over === null ? ` ${COLOUR[st.side]} moves again.` : "")
    + (c.note ? ` Note: the start: ${c.note}.` : ""));
  const list = $("move-list");
  list.innerHTML = "";
  for (const m of st.played) {
    const li = document.createElement("li");
    li.textContent = m;
    list.appendChild(li);
  }
  paintHints();
}

function paintHints() {
  const st = S.state;
  const board = $("board");
  clearMarks(board);
  const hints = st.hints;
  const show = $("hints").checked && hints && !hints.error && humanToMove();
  if (S.selected) board.querySelector(`#mark-${S.selected}`).classList.add("selected");
  if (!show) {
    $("hint-list").innerHTML = "";
    say("hint-summary", hints && hints.error && $("hints").checked ? `No hints: ${hints.error}` : "");
    return;
  }
  const rule = hints.rule
    ? ` Under the ${hints.rule.limit}-ply rule, after ${hints.rule.quiet_plies} quiet plies: ${hints.rule.value}` +
      (hints.rule.wdl === hints.rule.value ? "" : ` (${hints.rule.wdl} at a fresh count)`) +
      (hints.rule.dtz !== null ? `, next mill in ${hints.rule.dtz}.`
        : hints.rule.placing_plies !== undefined ? `, moving phase in ${hints.rule.placing_plies}.` : ".")
    : "";
  say("hint-summary", hints.dice
    ? `Before this throw: ${percentText(hints.expected)} for ${COLOUR[st.side]}.`
    : hints.ceylonese
      ? `This position: ${turnsText(hints.value, hints.turns)} for ${COLOUR[st.side]} (a turn: a side's moves until the other's).`
    : `This position: ${valueText(hints.value, hints.plies)} for ${COLOUR[st.side]}.${rule}`);
  paintMarks(board, bestBy(hints.moves, hintKey(st)));
  if (S.selected) board.querySelector(`#mark-${S.selected}`).classList.add("selected");
  const shown = S.pending ? hints.moves.filter((mv) => S.pending.some((p) => p.text === mv.move)) : hints.moves;
  fillMoveTable($("hint-list"), shown, (move) => humanToMove() && playMove(move));
}

// The game's dice (none: ""), and the seed its throws come from (the server throws
// them); or its reading of Ceylonese mill (none: "").
function diceParams() {
  if (S.ceylonese) return { ceylonese: S.ceylonese };
  return S.dice ? { dice: S.dice, seed: S.diceSeed } : {};
}

async function refresh() {
  S.state = await api("/api/game", { rules: S.rules, start: S.start, moves: S.moves, hints: true, ...diceParams() });
  S.moves = S.state.played;
  render();
}

async function playMove(text) {
  S.selected = S.pending = null;
  S.moves.push(text);
  try {
    await refresh();
  } catch (error) {
    S.moves.pop();
    say("message", error.message, true);
    render();
    return;
  }
  say("message", `You play ${text}.`);
  await computerTurn();
}

async function computerTurn() {
  const st = S.state;
  if (st.game_over !== null || st.side === S.human) return;
  say("message", `${COLOUR[st.side]} (computer, ${$("level").value}) is thinking...`);
  try {
    S.state = await api("/api/play", {
      rules: S.rules, start: S.start, moves: S.moves, level: $("level").value,
      think: Number($("think").value) || 1, hints: true, seed: S.seed, ...diceParams(),
    });
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  S.moves = S.state.played;
  render();
  const fresh = S.state.notes.filter((note) => !S.said.has(note));
  fresh.forEach((note) => S.said.add(note));
  const notes = fresh.length ? ` (${fresh.join("; ")})` : "";
  const mover = S.state.ceylonese ? S.state.ceylonese.movers.at(-1) : other(S.state.side);
  say("message", `${COLOUR[mover]} (computer, ${$("level").value}) plays ${S.state.computer_move}${notes}`);
  // Ceylonese mill: a mill earns another move, so the computer may move again
  if (S.state.game_over === null && S.state.side !== S.human) await computerTurn();
}

function refuse(text) {
  say("message", `Illegal: ${text}`, true);
}

function onBoardClick(event) {
  const hit = event.target.closest("[data-point]");
  if (!hit || S.busy) return;
  const point = hit.dataset.point;
  const st = S.state;
  if (st.game_over !== null) return refuse(`the game is over (${st.result}); undo or start a new game`);
  if (st.side !== S.human) return refuse("it is the computer's turn");
  const legal = st.moves.map(parseMove);
  if (S.pending) {
    const chosen = S.pending.find((m) => m.take === point);
    if (chosen) return playMove(chosen.text);
    if (point === S.pending[0].target) {            // a second click on the move: cancel it
      S.pending = S.selected = null;
      say("message", "Move cancelled.");
      return paintHints();
    }
    return refuse(`${point} is not a stone this mill may take (${S.pending.map((m) => m.take).join(", ")})`);
  }
  let candidates;
  if (st.hands[st.side] > 0) {
    candidates = legal.filter((m) => m.origin === null && m.target === point);
    if (!candidates.length) return refuse(`you cannot place a stone on ${point}`);
  } else {
    if (S.selected === point) {
      S.selected = null;
      say("message", "");
      return paintHints();
    }
    if (legal.some((m) => m.origin === point)) {
      S.selected = point;
      say("message", `Stone on ${point} chosen: click where it goes.`);
      return paintHints();
    }
    if (!S.selected) return refuse(`no stone of yours on ${point} can move`);
    candidates = legal.filter((m) => m.origin === S.selected && m.target === point);
    if (!candidates.length) return refuse(`${S.selected}-${point} is not a legal move`);
  }
  if (candidates.length === 1) return playMove(candidates[0].text);
  S.pending = candidates;
  say("message", `${candidates[0].origin ? candidates[0].origin + "-" : ""}${point} closes a mill: `
      + `click the stone to take (${candidates.map((m) => m.take).join(", ")}).`);
  paintHints();
}

async function newGame() {
  const choice = $("colour").value;
  S.human = choice === "random" ? (Math.random() < 0.5 ? "w" : "b") : choice;
  S.moves = [];
  S.selected = S.pending = null;
  S.said.clear();
  S.dice = $("dice").value;
  S.ceylonese = $("ceylonese").value;
  // the throws' seed: the address's ?seed= where given (repeatable), else a new one a game
  S.diceSeed = S.seed !== null ? Number(S.seed) : Math.floor(Math.random() * 2 ** 31);
  say("message", "");
  try {
    await refresh();
  } catch (error) {
    say("message", error.message, true);
    return;
  }
  say("message", `New game: you play ${COLOUR[S.human]} against ${$("level").value}.`);
  await computerTurn();
}

async function undo() {
  // who made each move: the server's list in Ceylonese mill (a mill earns another
  // move), else the sides alternate
  const c = S.state.ceylonese;
  const startSide = S.state.played.length % 2 === 0 ? S.state.side : other(S.state.side);
  const sideAt = c ? (ply) => c.movers[ply] : (ply) => (ply % 2 === 0 ? startSide : other(startSide));
  let first = S.moves.length - 1;
  while (first >= 0 && sideAt(first) !== S.human) first -= 1;
  if (first < 0) return say("message", "Nothing to take back: you have not moved yet.");
  while (first > 0 && sideAt(first - 1) === S.human) first -= 1;    // the whole of the human's turn
  const taken = S.moves.splice(first);
  S.selected = S.pending = null;
  await refresh();
  say("message", `Taken back: ${taken.join(" ")}`);
}

// --- position editor ----------------------------------------------------------------------

function editPosition() {
  const names = (set) => [...set].sort().join(",");
  const wh = Number($("edit-white-hand").value) || 0, bh = Number($("edit-black-hand").value) || 0;
  return `W:${names(E.white)} B:${names(E.black)} ${$("edit-turn").value}` + (wh || bh ? ` ${wh} ${bh}` : "");
}

async function drawEditBoard(query) {
  const text = editPosition();
  $("edit-position").value = text;
  const params = new URLSearchParams({ position: text, rules: S.rules });
  setBusy(1);
  try {
    const response = await fetch(`/api/board.svg?${params}`);
    const body = await response.text();
    if (!response.ok) throw new Error(JSON.parse(body).error);
    $("edit-board").innerHTML = body;
    say("edit-message", "");
    const formats = await api("/api/convert", { rules: S.rules, position: text });
    $("edit-formats").textContent = formats.fen === null && formats.malom === null
      ? `FEN, Malom: - (${formats.note})`
      : `FEN: ${formats.fen}\nMalom: ${formats.malom}`;
  } catch (error) {
    say("edit-message", error.message, true);
  } finally {
    setBusy(-1);
  }
  if (query) paintMarks($("edit-board"), bestBy(query.moves, (m) => (query.placing ? m.target : m.origin)));
}

function loadEditor(text) {
  // text is canonical (from the server): "W:a1,d2 B:a4 w [wh bh]"
  const [w, b, turn, wh, bh] = text.split(" ");
  E.white = new Set(w.slice(2).split(",").filter(Boolean));
  E.black = new Set(b.slice(2).split(",").filter(Boolean));
  $("edit-turn").value = turn;
  $("edit-white-hand").value = wh || 0;
  $("edit-black-hand").value = bh || 0;
}

function onEditClick(event) {
  const hit = event.target.closest("[data-point]");
  if (!hit) return;
  const point = hit.dataset.point;
  const tool = document.querySelector("input[name=tool]:checked").value;
  E.white.delete(point);
  E.black.delete(point);
  if (tool === "w") E.white.add(point);
  if (tool === "b") E.black.add(point);
  clearQuery();
  drawEditBoard();
}

function clearQuery() {
  say("query-summary", "");
  $("query-list").innerHTML = "";
}

async function setEditorFrom(text) {
  try {
    const answer = await api("/api/moves", { rules: S.rules, position: text });
    loadEditor(answer.position);
  } catch (error) {
    return say("edit-message", error.message, true);
  }
  clearQuery();
  await drawEditBoard();
}

async function queryEditor() {
  const text = editPosition();
  let answer;
  try {
    answer = await api("/api/query", { rules: S.rules, position: text });
  } catch (error) {
    clearQuery();
    return say("edit-message", error.message, true);
  }
  const side = text.split(" ")[2];
  say("query-summary", `${answer.position}: ${valueText(answer.value, answer.plies)} for ${COLOUR[side]}`
      + (answer.moves.length ? "; the moves, best first (for the mover):" : ""));
  fillMoveTable($("query-list"), answer.moves, null);
  const hand = side === "w" ? $("edit-white-hand").value : $("edit-black-hand").value;
  await drawEditBoard({ moves: answer.moves, placing: Number(hand) > 0 });
}

// --- analysis --------------------------------------------------------------------------------

const SCORE = { win: 1, draw: 0, loss: -1 };

function drawGraph(rows) {
  // The value for White after each ply (before the first: the start position).
  const svg = $("graph");
  const W = 640, H = 170, L = 70, R = 10, T = 12, B = 22;
  const n = rows.length;
  const x = (ply) => L + (n ? (ply * (W - L - R)) / n : 0);
  const y = (score) => T + ((1 - score) * (H - T - B)) / 2;
  const forWhite = (value, side) => (value === null ? null : side === "w" ? SCORE[value] : -SCORE[value]);
  const points = [];
  if (n) points.push([0, forWhite(rows[0].before, rows[0].side)]);
  for (const r of rows) points.push([r.ply, forWhite(r.after, r.side)]);
  let parts = [`<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="none" stroke="#ccc"/>`];
  for (const [score, name] of [[1, "White wins"], [0, "draw"], [-1, "Black wins"]]) {
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${y(score)}" y2="${y(score)}" stroke="#eee"/>`);
    parts.push(`<text x="${L - 6}" y="${y(score) + 4}" font-size="11" text-anchor="end">${name}</text>`);
  }
  let path = "", pen = false;
  for (const [ply, score] of points) {
    if (score === null) { pen = false; continue; }
    path += `${pen ? "L" : "M"}${x(ply).toFixed(1)},${y(score)} `;
    pen = true;
  }
  parts.push(`<path id="graph-line" d="${path}" fill="none" stroke="#5a4126" stroke-width="2"/>`);
  for (const r of rows) {
    const score = forWhite(r.after, r.side);
    if (score === null) continue;
    const colour = r.blunder ? S.colours.loss : "#5a4126";
    parts.push(`<circle class="${r.blunder ? "graph-blunder" : "graph-point"}" data-ply="${r.ply}" `
      + `cx="${x(r.ply).toFixed(1)}" cy="${y(score)}" r="${r.blunder ? 5 : 2.5}" fill="${colour}">`
      + `<title>ply ${r.ply} ${r.move}${r.blunder ? " ?? " + r.blunder : ""}</title></circle>`);
  }
  parts.push(`<text x="${W - R}" y="${H - 6}" font-size="11" text-anchor="end">ply ${n}</text>`);
  svg.innerHTML = parts.join("");
}

async function showAnalysisPly(result, ply) {
  for (const row of $("analysis-table").querySelectorAll("tbody tr")) {
    row.classList.toggle("current", Number(row.dataset.ply) === ply);
  }
  delete $("analysis-board").dataset.placement;
  try {
    const st = await api("/api/game", {
      rules: result.rules, start: result.start, moves: result.moves.slice(0, ply).map((r) => r.move), hints: false,
      ...(result.ceylonese ? { ceylonese: result.ceylonese } : {}),
    });
    $("analysis-board").innerHTML = st.svg;
    $("analysis-board").dataset.ply = String(ply);
  } catch (error) {
    say("analysis-message", error.message, true);
  }
}

// The board after placement i of a dice game (the next placement's position, or where
// the moves after the placement phase start).
async function showAnalysisPlacement(result, i) {
  for (const row of $("analysis-table").querySelectorAll("tbody tr")) {
    row.classList.toggle("current", Number(row.dataset.placement) === i + 1);
  }
  const after = i + 1 < result.placements.length ? result.placements[i + 1].position : result.start;
  try {
    const st = await api("/api/game", { rules: result.rules, start: after, moves: [], hints: false });
    $("analysis-board").innerHTML = st.svg;
    $("analysis-board").dataset.placement = String(i + 1);
    delete $("analysis-board").dataset.ply;
  } catch (error) {
    say("analysis-message", error.message, true);
  }
}

// A reviewed placement of dice mill in words: the expected score it gave away.
function placementReviewText(p) {
  if (p.is_best === null) return "-";
  if (!p.mark) return "";
  return `${p.mark} ${(100 * p.score_lost).toFixed(1)}% of the score lost (best ${p.best})`;
}

// A reviewed move's mark in words, as muehle analyze prints it.
// unit: what the values count (plies; turns in Ceylonese mill)
function reviewText(r, unit = "plies") {
  if (r.is_best === null) return "-";
  if (!r.mark) return "";
  const words = r.mark === "?!"
    ? `${r.plies_lost === null ? "" : `${r.plies_lost} ${unit} `}${r.best_value === "win" ? "slower" : "sooner lost"}`
      + (r.plies_to === "mill" ? " to the next mill" : r.plies_to === "moving" ? " to the moving phase" : "")
    : r.blunder;
  return `${r.mark} ${words} (best ${r.best})`;
}

async function analyze() {
  const record = $("record").value;
  const body = { record };
  if (!/^\s*rules\s*:/m.test(record)) body.rules = S.rules;
  let result;
  try {
    result = await api("/api/analyze", body);
  } catch (error) {
    for (const id of ["analysis-summary", "analysis-table", "graph", "analysis-board"]) $(id).innerHTML = "";
    return say("analysis-message", error.message, true);
  }
  const blunders = result.moves.filter((r) => r.blunder);
  say("analysis-message", result.warnings.length ? `Warning: ${result.warnings.join("; ")}` : "",
      result.warnings.length > 0);
  // a game of dice mill: its placements reviewed by their throws (muehle analyze lists
  // them); the table and the board show the moves after them, from where they start
  let placed = result.placements
    ? `Dice mill (${result.dice}): ${result.placements.length} placement(s) reviewed by their throws;`
      + Object.entries(result.placement_summary).filter(([, s]) => s.moves).map(([side, s]) =>
        ` ${COLOUR[side]} ${s.accuracy}% best, ?? ${s["??"]}, ? ${s["?"]}, ?! ${s["?!"]};`).join("")
      + " the moves after them: "
    : "";
  // a game of Ceylonese mill: values in turns (a side may move several times in a row)
  const turns = result.counts === "turns";
  if (turns) placed = `Ceylonese mill (${result.ceylonese}), values in turns. `;
  $("analysis-summary").textContent = placed + `Rules ${result.rules}, start ${result.start}; values for the mover. `
    + `${blunders.length} blunder(s)` + (blunders.length ? ": " + blunders.map((r) => `ply ${r.ply} ${r.move} (${r.blunder})`).join(", ") : "")
    + (result.result ? `. Result: ${result.result}.` : ".")
    + Object.entries(result.summary).filter(([, s]) => s.moves).map(([side, s]) =>
      ` ${COLOUR[side]}: accuracy ${s.accuracy}% (${s.best} of ${s.moves} best), ?? ${s["??"]}, ? ${s["?"]}, ?! ${s["?!"]}.`).join("");
  const table = $("analysis-table");
  table.innerHTML = "<thead><tr><th>ply</th><th>side</th><th>move</th><th>before</th><th>after</th><th></th></tr></thead>";
  const body2 = table.createTBody();
  // dice mill's placements first: the throw with the move, expected results, no plies
  for (const [i, p] of (result.placements || []).entries()) {
    const row = body2.insertRow();
    row.dataset.placement = p.ply;
    row.classList.add("placement");
    if (p.mark === "??") row.classList.add("blunder");
    row.insertCell().textContent = `p${p.ply}`;
    row.insertCell().textContent = COLOUR[p.side];
    row.insertCell().textContent = `[${p.throw.split(" ").join("-")}] ${p.move}`;   // as in the record
    for (const e of [p.before, p.after]) row.insertCell().textContent = e ? percentText(e) : "-";
    row.insertCell().textContent = placementReviewText(p);
    row.addEventListener("click", () => showAnalysisPlacement(result, i));
  }
  for (const r of result.moves) {
    const row = body2.insertRow();
    row.dataset.ply = r.ply;
    if (r.blunder) row.classList.add("blunder");
    row.insertCell().textContent = r.ply;
    row.insertCell().textContent = COLOUR[r.side];
    row.insertCell().textContent = r.move;
    for (const [v, p] of [[r.before, r.before_plies], [r.after, r.after_plies]]) {
      const cell = row.insertCell();
      cell.textContent = turns ? turnsText(v, p) : valueText(v, p);
      if (v) cell.className = v;
    }
    row.insertCell().textContent = reviewText(r, turns ? "turns" : "plies") + (r.again ? " (moves again)" : "");
    row.addEventListener("click", () => showAnalysisPly(result, r.ply));
  }
  drawGraph(result.moves);
  await showAnalysisPly(result, result.moves.length);
}

// --- wiring -------------------------------------------------------------------------------

function showTab(name) {
  for (const button of document.querySelectorAll("nav button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const panel of document.querySelectorAll(".panel")) {
    panel.classList.toggle("hidden", panel.id !== `panel-${name}`);
  }
}

async function main() {
  await loadRules();
  for (const button of document.querySelectorAll("nav button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  $("rules").addEventListener("change", async () => {
    S.rules = $("rules").value;
    showRulesInfo();
    S.start = null;
    await newGame();
    await setEditorFrom("startpos");
  });
  $("board").addEventListener("click", onBoardClick);
  $("new-game").addEventListener("click", () => { S.start = null; newGame(); });
  // one game at a time: dice mill or Ceylonese mill
  $("dice").addEventListener("change", () => { $("ceylonese").value = ""; S.start = null; newGame(); });
  $("ceylonese").addEventListener("change", () => { $("dice").value = ""; S.start = null; newGame(); });
  $("undo").addEventListener("click", undo);
  $("hints").addEventListener("change", paintHints);
  $("to-analysis").addEventListener("click", () => {
    $("record").value = S.state.record;
    showTab("analysis");
    analyze();
  });
  $("edit-board").addEventListener("click", onEditClick);
  for (const id of ["edit-white-hand", "edit-black-hand", "edit-turn"]) {
    $(id).addEventListener("change", () => { clearQuery(); drawEditBoard(); });
  }
  $("edit-set").addEventListener("click", () => setEditorFrom($("edit-position").value));
  $("edit-clear").addEventListener("click", () => setEditorFrom("W: B: w"));
  $("edit-start").addEventListener("click", () => setEditorFrom("startpos"));
  $("edit-query").addEventListener("click", queryEditor);
  $("edit-play").addEventListener("click", async () => {
    S.start = editPosition();
    showTab("play");
    await newGame();
  });
  $("record-file").addEventListener("change", async () => {
    const file = $("record-file").files[0];
    if (file) $("record").value = await file.text();
  });
  $("analyze").addEventListener("click", analyze);
  await setEditorFrom("startpos");
  await newGame();
}

window.addEventListener("DOMContentLoaded", main);
