// Building DOM nodes. Views take the builder as a parameter (`h`), so Node's test runner
// can render them into plain objects without a DOM.
//
// Safety: every string child becomes a text node; nothing here ever sets innerHTML.

// h("p", {className: "x", onClick: fn}, "text", childNode)
export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  if (props) {
    for (const [name, value] of Object.entries(props)) {
      if (value == null || value === false) continue;
      if (name === "className") node.className = value;
      else if (name === "dataset") Object.assign(node.dataset, value);
      else if (/^on[A-Z]/.test(name) && typeof value === "function") {
        node.addEventListener(name.slice(2).toLowerCase(), value);
      } else if (name in node && typeof value !== "string") node[name] = value;
      else node.setAttribute(name, value === true ? "" : value);
    }
  }
  for (const child of children.flat()) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const byId = (id) => document.getElementById(id);
