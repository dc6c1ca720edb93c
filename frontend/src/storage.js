// localStorage that never throws (private mode, quota, disabled), with the page's keys.

export function createStore(backend) {
  return {
    get(key) {
      try {
        const raw = backend().getItem(key);
        return raw == null ? null : JSON.parse(raw);
      } catch {
        return null;
      }
    },
    set(key, value) {
      try {
        backend().setItem(key, JSON.stringify(value));
        return true;
      } catch {
        return false;
      }
    },
    remove(key) {
      try {
        backend().removeItem(key);
      } catch {
        // nothing to do: the key stays, which is what a failed write means anyway
      }
    },
  };
}

// Reading window.localStorage can itself throw (a sandboxed frame), hence the function.
export const store = createStore(() => window.localStorage);

export const keys = {
  draft: (slug, track) => `drill:v1:draft:${slug}:${track}`,
  track: (slug) => `drill:v1:track:${slug}`,
  hints: (slug) => `drill:v1:hints:${slug}`,
  hintsOpen: (slug) => `drill:v1:hints-open:${slug}`,
  tab: (slug) => `drill:v1:tab:${slug}`,
};
