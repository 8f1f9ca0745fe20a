// flowmem inspector: the only script. Forms marked data-confirm ask first (the server needs no script).
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
});
