/* Added to every page by _ext/solvable_site.py.

   Solutions (sphinx-exercise) are collapsed admonitions whose title, "Solution to Exercise N (...)", is mostly a link
   to the exercise. sphinx-togglebutton opens a collapsed admonition on a click of its title, but a click on the link
   inside the title reaches its handler with the link as target: it finds no button, throws
   "ReferenceError: button is not defined", and the browser follows the link instead of opening the solution. Catch
   such clicks first (capture phase): keep the page where it is and hand the click to the title itself, which opens
   or closes the solution. */
document.addEventListener(
  "click",
  (event) => {
    const title = event.target.closest ? event.target.closest(".toggle > .admonition-title, .dropdown > .admonition-title") : null;
    if (!title || event.target === title || event.target.closest(".toggle-button")) {
      return;  // the title itself or its button: sphinx-togglebutton handles these
    }
    event.preventDefault();
    event.stopPropagation();
    title.click();
  },
  true,
);
