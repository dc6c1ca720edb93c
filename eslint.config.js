// ESLint (flat config) for the front end: the page's modules, the editor, their unit
// tests and this file. `make lint` runs it.

import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "static/build/", ".venv/", "var/", "build/", "dist/"] },
  js.configs.recommended,
  {
    files: ["frontend/src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
  },
  {
    files: ["tests/frontend/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
  {
    rules: {
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", caughtErrors: "none" }],
      "no-var": "error",
      "prefer-const": "error",
      "no-implicit-globals": "error",
    },
  },
];
