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
// Copy a share link.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  if (!field) return;
  const done = () => { button.textContent = "Copied"; setTimeout(() => { button.textContent = "Copy"; }, 2000); };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, () => { field.select(); });
  } else {
    field.select();
  }
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
