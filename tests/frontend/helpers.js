// A node builder for the views (they take `h` as a parameter): plain objects instead of
// DOM nodes, so Node's test runner can render and inspect them.

export function h(tag, props, ...children) {
  return {
    tag,
    props: props || {},
    children: children.flat(Infinity).filter((child) => child != null && child !== false),
  };
}

// The text a reader would see, children in order.
export function text(node) {
  if (node == null || node === false) return "";
  if (typeof node !== "object") return String(node);
  if (Array.isArray(node)) return node.map(text).join("");
  return node.children.map(text).join("");
}

// Every node (depth first) for which `test(node)` holds.
export function findAll(node, test) {
  const found = [];
  const visit = (n) => {
    if (!n || typeof n !== "object") return;
    if (Array.isArray(n)) return n.forEach(visit);
    if (test(n)) found.push(n);
    n.children.forEach(visit);
  };
  visit(node);
  return found;
}

export const byClass = (name) => (n) => String(n.props.className || "").split(" ").includes(name);
export const byTag = (tag) => (n) => n.tag === tag;

// A stand-in for one of the page's elements (ui.body, ui.notice, a button), for the
// modules that write into them: what they set (hidden, disabled, textContent, classes,
// attributes), the nodes they put in (`children`, so `text` reads them), the listeners
// they add (`fire` calls them) and focus (`document.activeElement`, see fakeDocument).
export function fakeElement(name = "element") {
  const listeners = {};
  const classes = new Set();
  const attributes = {};
  const node = {
    name,
    hidden: false,
    disabled: false,
    textContent: "",
    children: [],
    attributes,
    classList: {
      toggle(cls, force = !classes.has(cls)) {
        if (force) classes.add(cls);
        else classes.delete(cls);
        return force;
      },
      contains: (cls) => classes.has(cls),
    },
    setAttribute(key, value) {
      attributes[key] = String(value);
    },
    getAttribute: (key) => (key in attributes ? attributes[key] : null),
    addEventListener(type, fn) {
      (listeners[type] ||= []).push(fn);
    },
    fire(type, event = {}) {
      return (listeners[type] || []).map((fn) => fn(event));
    },
    replaceChildren(...nodes) {
      node.children = nodes;
    },
    contains: (other) => other === node,
    focus() {
      if (globalThis.document) globalThis.document.activeElement = node;
    },
  };
  return node;
}

// The little of `document` the page's modules read at run time: activeElement, body and
// getElementById (the results heading, the solved panel: absent here). Returns it, and a
// function that puts the previous global back.
export function fakeDocument() {
  const previous = globalThis.document;
  const body = fakeElement("body");
  const document = { body, activeElement: body, getElementById: () => null };
  globalThis.document = document;
  return {
    document,
    restore() {
      if (previous === undefined) delete globalThis.document;
      else globalThis.document = previous;
    },
  };
}
