// eslint over the package's JavaScript (scripts/lint.sh). The page agent's files are ES
// modules, bundled into one script by webharness/browser/js_bundle.py: a name a module
// uses must be declared there or imported. The other files are classic scripts, each
// evaluated on its own in a page (its hooks, the perturbations, the path recorder).
import js from "@eslint/js";
import globals from "globals";

const rules = {
  "no-undef": "error",
  "no-unused-vars": "error",
};

export default [
  js.configs.recommended,
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  {
    files: ["webharness/browser/js/page_agent/**/*.js"],
    languageOptions: { sourceType: "module", globals: globals.browser },
    rules,
  },
  {
    files: ["webharness/browser/js/*.js"],
    languageOptions: { sourceType: "script", globals: globals.browser },
    rules: { ...rules, "no-implicit-globals": "error" },
  },
];
