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
