// LTI Dynamic Registration, last step: tell the LMS that opened the registration page
// (in a frame or a window) that the tool is registered and the page may close. Its origin
// is the page's data-platform-origin; the message says nothing secret.
/* global document, window */
const node = document.getElementById("lti-registered");
const target = (node && node.dataset.platformOrigin) || "*";
const platform = window.opener || (window.parent !== window ? window.parent : null);
if (platform) platform.postMessage({ subject: "org.imsglobal.lti.close" }, target);
