// Livery ops console. Plain JavaScript, no build step, nothing from the internet. Every read and write goes
// through the admin API (/admin/v1) with the operator's bearer token, kept in this tab's sessionStorage only.
"use strict";
(function () {
  var API = "/admin/v1";
  var TOKEN_KEY = "livery.console.token";
  var PLATFORMS = ["ios", "android", "harmony", "macos"];
  var IMAGE_EXTENSIONS = ["png", "jpg", "jpeg", "gif", "webp"];
  var main = document.getElementById("main");
  var me = null; // {name, role} from GET /whoami
  var blobCache = new Map(); // "id/version/path" -> Promise<blob URL>

  // ---------------------------------------------------------------------------------------------------------
  // DOM helpers: text always goes in as text (never as HTML), so nothing from the server can inject markup.

  function h(tag, attrs) {
    var element = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === undefined || value === null || value === false) return;
        if (key === "text") element.textContent = value;
        else if (key === "class") element.className = value;
        else if (key.indexOf("on") === 0) element.addEventListener(key.slice(2), value);
        else if (key === "style") Object.keys(value).forEach(function (p) { element.style.setProperty(p, value[p]); });
        else element.setAttribute(key, value === true ? "" : value);
      });
    }
    for (var i = 2; i < arguments.length; i++) append(element, arguments[i]);
    return element;
  }

  function append(parent, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(parent, c); }); return; }
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }

  function clear(element) { while (element.firstChild) element.removeChild(element.firstChild); }

  var fieldCounter = 0;
  // A labelled form field: the label's `for` names the control's id.
  function field(labelText, control, hint) {
    if (!control.id) control.id = "f" + (++fieldCounter);
    return h("div", { class: "field" }, h("label", { for: control.id, text: labelText }), control,
      hint ? h("span", { class: "hint", text: hint }) : null);
  }

  function canWrite() { return me && me.role === "editor"; }

  // ---------------------------------------------------------------------------------------------------------
  // The admin API.

  function ApiError(status, body, etag) {
    var error = (body && body.error) || {};
    var details = error.details || {};
    this.status = status;
    this.code = error.code || "http_" + status;
    this.message = error.message || "The server answered " + status + ".";
    this.field = details.field || null;
    this.reason = details.reason || null;
    this.details = details;
    this.body = body;
    this.etag = etag;
  }

  function api(method, path, options) {
    options = options || {};
    var headers = { Accept: "application/json" };
    var token = options.token || sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = "Bearer " + token;
    if (options.etag) headers["If-Match"] = options.etag;
    var body;
    if (options.json !== undefined) { headers["Content-Type"] = "application/json"; body = JSON.stringify(options.json); }
    if (options.file !== undefined) { headers["Content-Type"] = "application/zip"; body = options.file; }
    return fetch(API + path, { method: method, headers: headers, body: body, cache: "no-store", credentials: "omit" })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = null;
          try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
          var etag = response.headers.get("ETag");
          if (!response.ok) {
            var error = new ApiError(response.status, data, etag);
            if (response.status === 401 && !options.token) { signOut("Your token was refused (" + (error.reason || "unauthorized") + "). Sign in again."); }
            throw error;
          }
          return { status: response.status, data: data, etag: etag };
        });
      }, function () {
        throw new ApiError(0, { error: { code: "unreachable", message: "The server cannot be reached." } }, null);
      });
  }

  // A stored file as a blob: URL (an <img> cannot send the Authorization header, so fetch it and hand over a blob).
  function fileURL(id, version, path) {
    var key = id + "/" + version + "/" + path;
    if (!blobCache.has(key)) {
      var encoded = path.split("/").map(encodeURIComponent).join("/");
      var promise = fetch(API + "/skins/" + encodeURIComponent(id) + "/versions/" + version + "/files/" + encoded, {
        headers: { Authorization: "Bearer " + sessionStorage.getItem(TOKEN_KEY) }, credentials: "omit"
      }).then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.blob();
      }).then(function (blob) { return URL.createObjectURL(blob); });
      promise.catch(function () { blobCache.delete(key); });
      blobCache.set(key, promise);
    }
    return blobCache.get(key);
  }

  // An <img> that fills in once its blob is fetched.
  function thumbnail(id, version, path, alt, className) {
    var image = h("img", { class: className || "thumb", alt: alt || path, "data-path": path });
    fileURL(id, version, path).then(function (url) { image.src = url; }, function () { image.classList.add("broken"); });
    return image;
  }

  // An error box naming the field and the reason, as the API's error body does.
  function errorBox(error) {
    var box = h("div", { class: "error", role: "alert" },
      h("strong", { text: error.message }),
      error.field ? h("div", { class: "error-field" }, "Field ", h("code", { text: error.field }),
        error.reason ? ": " + error.reason : "") : null,
      Array.isArray(error.details.issues) ? h("ul", { class: "error-issues" }, error.details.issues.map(function (issue) {
        return h("li", null, issue.pointer ? h("code", { text: issue.pointer }) : null, " ", issue.message || "", issue.fix ? h("div", { class: "small", text: "fix: " + issue.fix }) : null);
      })) : null,
      h("div", { class: "error-code", text: "HTTP " + error.status + " · " + error.code }));
    return box;
  }

  function showBanner(text, kind) {
    var banner = document.getElementById("banner");
    banner.textContent = text;
    banner.className = "banner " + (kind || "ok");
    banner.hidden = false;
    clearTimeout(showBanner.timer);
    showBanner.timer = setTimeout(function () { banner.hidden = true; }, 6000);
  }

  // The confirmation dialog: resolves true when confirmed. `body` is a node or a list of nodes.
  function confirmAction(title, body, okLabel, danger) {
    var dialog = document.getElementById("confirm");
    document.getElementById("confirm-title").textContent = title;
    var holder = document.getElementById("confirm-body");
    clear(holder);
    append(holder, body);
    var ok = document.getElementById("confirm-ok");
    var cancel = document.getElementById("confirm-cancel");
    ok.textContent = okLabel || "Confirm";
    ok.className = danger ? "danger" : "";
    return new Promise(function (resolve) {
      function finish(result) {
        ok.removeEventListener("click", onOK);
        cancel.removeEventListener("click", onCancel);
        dialog.removeEventListener("cancel", onCancel);
        if (dialog.open) dialog.close();
        resolve(result);
      }
      function onOK() { finish(true); }
      function onCancel(event) { if (event) event.preventDefault(); finish(false); }
      ok.addEventListener("click", onOK);
      cancel.addEventListener("click", onCancel);
      dialog.addEventListener("cancel", onCancel);
      dialog.showModal();
      cancel.focus();
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Time: release windows are instants with an offset, or local date-times plus an IANA time zone.

  var viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

  // The wall-clock fields of `date` in `zone`, as two-digit strings (year four).
  function zonedParts(date, zone) {
    var parts = {};
    new Intl.DateTimeFormat("en-US", {
      timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", second: "2-digit"
    }).formatToParts(date).forEach(function (p) { parts[p.type] = p.value; });
    if (parts.hour === "24") parts.hour = "00";
    return parts;
  }

  function zoneOffsetMinutes(date, zone) {
    var parts = zonedParts(date, zone);
    var asUTC = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
    return Math.round((asUTC - Math.floor(date.getTime() / 1000) * 1000) / 60000);
  }

  // The instant of `text` ("2027-02-05T00:00:00+08:00", "…Z", or local "2027-02-05T00:00:00" in `zone`).
  function instantOf(text, zone) {
    if (!text) return null;
    if (/(Z|[+-]\d\d:\d\d)$/.test(text)) return new Date(text);
    var m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$/.exec(text);
    if (!m) return null;
    var guess = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] || 0));
    zone = zone || "UTC";
    try {
      var offset = zoneOffsetMinutes(new Date(guess), zone);
      var instant = guess - offset * 60000;
      var second = zoneOffsetMinutes(new Date(instant), zone);
      if (second !== offset) instant = guess - second * 60000;
      return new Date(instant);
    } catch (e) {
      return new Date(guess);
    }
  }

  function formatIn(date, zone) {
    if (!date) return "—";
    try {
      return new Intl.DateTimeFormat("en-GB", {
        timeZone: zone, year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
        hourCycle: "h23", timeZoneName: "short"
      }).format(date);
    } catch (e) {
      return date.toISOString();
    }
  }

  // A release's window: its instants, and the zone it was written in (an IANA name, or the fixed offset of
  // startsAt such as +08:00, or UTC for Z).
  // A recurring release's window is its occurrence in force, as the server lists it (nextOccurrences, instants):
  // the console never computes a calendar.
  function windowOf(release) {
    if (!release) return null;
    if (release.recurs) {
      var next = (release.nextOccurrences || []).filter(function (o) { return o.source !== "skip"; })[0];
      return next ? { start: new Date(next.startsAt), end: new Date(next.endsAt), zone: release.timeZone || "UTC", year: next.year } : null;
    }
    var zone = release.timeZone || null;
    var start = instantOf(release.startsAt, zone), end = instantOf(release.endsAt, zone);
    if (!zone) {
      var offset = /([+-])(\d\d):(\d\d)$/.exec(release.startsAt || "");
      zone = offset ? offset[0] : "UTC";
    }
    return start && end ? { start: start, end: end, zone: zone } : null;
  }

  // Rules that recur every year (docs/SKINS.md, "Windows that recur"). The console only writes rules; each year's
  // dates come from the server (nextOccurrences), which computes the Chinese calendar.
  var RULE_KEYS = ["calendar", "month", "leapMonth", "day", "startOffsetDays", "endOffsetDays", "startTime", "endTime", "ifMissing"];
  var RULE_DEFAULTS = { leapMonth: false, startOffsetDays: 0, endOffsetDays: 0, startTime: "00:00:00", endTime: "23:59:59", ifMissing: "refuse" };
  // The festivals the release form offers, each in Asia/Shanghai (the statutory breaks are China's).
  var FESTIVALS = [
    { key: "spring-festival", label: "Spring Festival 春节 (Chinese 1-1, 7 days before to 15 after)", recurs: { calendar: "chinese", month: 1, day: 1, startOffsetDays: -7, endOffsetDays: 15 } },
    { key: "dragon-boat", label: "Dragon Boat 端午 (Chinese 5-5, 2 days either side)", recurs: { calendar: "chinese", month: 5, day: 5, startOffsetDays: -2, endOffsetDays: 2 } },
    { key: "mid-autumn", label: "Mid-Autumn 中秋 (Chinese 8-15, 2 days either side)", recurs: { calendar: "chinese", month: 8, day: 15, startOffsetDays: -2, endOffsetDays: 2 } },
    { key: "new-years-eve", label: "New Year's Eve 除夕 (the day before Chinese 1-1)", recurs: { calendar: "chinese", month: 1, day: 1, startOffsetDays: -1, endOffsetDays: -1 } },
    { key: "christmas", label: "Christmas (Gregorian 12-25, 5 days before to 2 after)", recurs: { calendar: "gregorian", month: 12, day: 25, startOffsetDays: -5, endOffsetDays: 2 } },
    { key: "618", label: "618 (Gregorian 6-18, from 1 June)", recurs: { calendar: "gregorian", month: 6, day: 18, startOffsetDays: -17, endOffsetDays: 0 } },
    { key: "double-11", label: "Double 11 (Gregorian 11-11, from 1 November)", recurs: { calendar: "gregorian", month: 11, day: 11, startOffsetDays: -10, endOffsetDays: 0 } }
  ];
  var FESTIVAL_ZONE = "Asia/Shanghai";

  // A rule with every default filled in, for comparing two spellings of the same rule.
  function fullRule(rule) {
    var full = {};
    RULE_KEYS.forEach(function (key) { full[key] = rule && rule[key] !== undefined && rule[key] !== null ? rule[key] : RULE_DEFAULTS[key]; });
    return full;
  }

  // A rule as skin.json writes it: defaults left out.
  function compactRule(rule) {
    var compact = {};
    RULE_KEYS.forEach(function (key) { if (rule[key] !== undefined && rule[key] !== RULE_DEFAULTS[key]) compact[key] = rule[key]; });
    return compact;
  }

  function sameRule(a, b) { return !a === !b && (!a || JSON.stringify(fullRule(a)) === JSON.stringify(fullRule(b))); }

  function festivalOf(rule) { return FESTIVALS.filter(function (f) { return sameRule(f.recurs, rule); })[0] || null; }

  function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + -n : "0"; }

  // "chinese 1-1, −7 to +15 days, 00:00:00–23:59:59" (a leap month as L6), with the festival's name when it is one.
  function ruleText(rule) {
    var r = fullRule(rule), festival = festivalOf(rule);
    return (festival ? festival.label.split(" (")[0] + ": " : "") + r.calendar + " " + (r.leapMonth ? "L" : "") + r.month + "-" + r.day +
      ", " + signed(r.startOffsetDays) + " to " + signed(r.endOffsetDays) + " days, " + r.startTime + "–" + r.endTime +
      (r.ifMissing !== "refuse" ? ", a year without that day: " + r.ifMissing : "");
  }

  // `date` at a fixed offset ("+08:00"), written like formatIn does.
  function formatAtOffset(date, offset) {
    var m = /([+-])(\d\d):(\d\d)/.exec(offset);
    var minutes = (m[1] === "-" ? -1 : 1) * (+m[2] * 60 + +m[3]);
    return formatIn(new Date(date.getTime() + minutes * 60000), "UTC").replace(/UTC$/, "UTC" + offset);
  }

  function formatZoned(date, zone) { return /^[+-]\d\d:\d\d$/.test(zone) ? formatAtOffset(date, zone) : formatIn(date, zone); }

  // Local date-time text for <input type="datetime-local"> of an instant in `zone`.
  function localText(date, zone) {
    var parts = zonedParts(date, zone);
    return parts.year + "-" + parts.month + "-" + parts.day + "T" + parts.hour + ":" + parts.minute + ":" + parts.second;
  }

  function statusOf(skin, switches, now) {
    if (!skin.release) return "unreleased";
    if ((switches.global && switches.global.enabled) || (skin.app && switches.apps[skin.app] && switches.apps[skin.app].enabled)) return "killed";
    if (skin.release.paused) return "paused";
    var w = windowOf(skin.release);
    // A theme released without a window is listed always.
    if (!w) return isTheme(skin.release) ? "live" : "unreleased";
    if (now < w.start) return "scheduled";
    if (now >= w.end) return "ended";
    return "live";
  }

  function isTheme(release) { return !!release && release.kind === "theme"; }

  // "theme · order 2" (or "no order": listed after every ordered theme), or "holiday".
  function kindText(release) {
    if (!isTheme(release)) return "holiday";
    return "theme · " + (release.order === null || release.order === undefined ? "no order" : "order " + release.order);
  }

  function statusBadge(status) {
    return h("span", { class: "status status-" + status, text: status });
  }

  function windowCell(release) {
    var w = windowOf(release);
    if (!w && isTheme(release)) return h("span", { class: "muted", text: "no window: always listed" });
    if (!w) return h("span", { class: "muted", text: "not released" });
    var zone = w.zone;
    return h("div", { class: "window" },
      h("div", { text: formatZoned(w.start, zone) + " → " + formatZoned(w.end, zone) }),
      h("div", { class: "muted small", text: (w.year ? "every year, now " + w.year + " · " : "") + (/^[A-Za-z]/.test(zone) && zone !== "UTC" ? zone + " · " : "") +
        (zone !== viewerZone ? "yours (" + viewerZone + "): " + formatIn(w.start, viewerZone) + " → " + formatIn(w.end, viewerZone) : "your time zone") }));
  }

  // ---------------------------------------------------------------------------------------------------------
  // config.json: dark overrides, identifier fallback, image references.

  function lightConfig(config) {
    var copy = {};
    Object.keys(config || {}).forEach(function (key) { if (key !== "dark") copy[key] = config[key]; });
    return copy;
  }

  // The config an app sees for `appearance`, with each dark override marked in `overridden` ("module/section/id").
  function effectiveConfig(config, appearance, overridden) {
    var light = lightConfig(config);
    if (appearance !== "dark" || !config || typeof config.dark !== "object") return light;
    var result = JSON.parse(JSON.stringify(light));
    Object.keys(config.dark).forEach(function (module) {
      var sections = config.dark[module] || {};
      Object.keys(sections).forEach(function (section) {
        var ids = sections[section] || {};
        Object.keys(ids).forEach(function (id) {
          if (!result[module]) result[module] = {};
          if (!result[module][section]) result[module][section] = {};
          result[module][section][id] = ids[id];
          if (overridden) overridden.add(module + "/" + section + "/" + id);
        });
      });
    });
    return result;
  }

  // An app's lookup: `a.b.c`, then `a.b`, then `a`, then `__default__`, in one module and section.
  function lookup(config, module, section, id) {
    var values = config[module] && config[module][section];
    if (!values) return undefined;
    var parts = id.split(".");
    while (parts.length) {
      var key = parts.join(".");
      if (Object.prototype.hasOwnProperty.call(values, key)) return values[key];
      parts.pop();
    }
    return values.__default__;
  }

  // The first of `ids` the module sets; else what an app gets for the most specific dotted one (its fallback chain).
  function pick(config, module, section, ids) {
    if (!module) return undefined;
    var values = config[module] && config[module][section];
    for (var i = 0; i < ids.length; i++) {
      if (values && Object.prototype.hasOwnProperty.call(values, ids[i])) return values[ids[i]];
    }
    var dotted = ids.filter(function (id) { return id.indexOf(".") >= 0; })[0] || ids[ids.length - 1];
    return dotted ? lookup(config, module, section, dotted) : undefined;
  }

  // What an image reference means: {name}, {color} or {remote}; null when it is not an image reference.
  function imageReference(ref) {
    if (typeof ref === "string") {
      if (/^https?:\/\//i.test(ref)) return { remote: ref };
      return { name: ref.replace(/^file:\/\//, "") };
    }
    if (ref && typeof ref === "object") {
      if (ref.type === 2 || (ref.type === undefined && typeof ref.color === "string")) return { color: ref.color };
      if (ref.type === 3) return { remote: ref.path };
      var name = ref.name !== undefined ? ref.name : ref.file;
      if (typeof name === "string") return { name: name.replace(/^file:\/\//, "") };
    }
    return null;
  }

  // The stored file a bundled image name resolves to at `scale` (the nearest scale, preferring the higher).
  function resolveImage(name, paths, scale) {
    var m = /^(.*?)(@([23])x)?(\.(png|jpe?g|gif|webp))?$/i.exec(name);
    if (!m) return null;
    if (m[3]) return paths.has(name) ? name : null;
    var extensions = m[5] ? [m[5]] : IMAGE_EXTENSIONS;
    var order = scale === 1 ? [1, 2, 3] : scale === 2 ? [2, 3, 1] : [3, 2, 1];
    for (var i = 0; i < order.length; i++) {
      for (var j = 0; j < extensions.length; j++) {
        var candidate = m[1] + (order[i] === 1 ? "" : "@" + order[i] + "x") + "." + extensions[j];
        if (paths.has(candidate)) return candidate;
      }
    }
    return null;
  }

  function isImagePath(path) { return /\.(png|jpe?g|gif|webp)$/i.test(path); }

  function swatch(text) {
    var color = window.LiveryColor.parse(text);
    var chip = h("span", { class: "swatch" + (color ? "" : " swatch-invalid"), role: "img",
      "aria-label": color ? "colour " + text : "not a colour: " + text, title: text });
    if (color) chip.appendChild(h("span", { class: "swatch-fill", style: { "background-color": window.LiveryColor.css(color) } }));
    return chip;
  }

  // Warnings the console can see from the stored files and config: unreferenced files, an image scale missing,
  // a colour or image that does not parse or resolve.
  function configWarnings(config, paths) {
    var warnings = [];
    var referenced = new Set(["config.json", "skin.json"]);
    var all = [lightConfig(config), config.dark || {}];
    all.forEach(function (cfg, index) {
      Object.keys(cfg).forEach(function (module) {
        var sections = cfg[module] || {};
        Object.keys(sections).forEach(function (section) {
          var ids = sections[section] || {};
          Object.keys(ids).forEach(function (id) {
            var pointer = "config.json#/" + (index ? "dark/" : "") + module + "/" + section + "/" + id;
            var value = ids[id];
            if (section === "colors" && !window.LiveryColor.parse(value)) warnings.push({ pointer: pointer, text: JSON.stringify(value) + " is not a colour" });
            if (section === "resources" && typeof value === "string") referenced.add(value);
            if (section === "images") {
              var ref = imageReference(value);
              if (ref && ref.name) {
                var found = false;
                [1, 2, 3].forEach(function (scale) { var p = resolveImage(ref.name, paths, scale); if (p) { referenced.add(p); found = true; } });
                if (!found) warnings.push({ pointer: pointer, text: "image " + JSON.stringify(ref.name) + " matches no stored file" });
              }
            }
          });
        });
      });
    });
    paths.forEach(function (path) {
      if (!referenced.has(path)) warnings.push({ pointer: path, text: "not referenced by config.json (left out of packages)" });
      var m = /^(.*)@([23])x(\.\w+)$/.exec(path);
      if (m) {
        var other = m[1] + "@" + (m[2] === "2" ? "3" : "2") + "x" + m[3];
        if (!paths.has(other)) warnings.push({ pointer: path, text: "@" + m[2] + "x without @" + (m[2] === "2" ? "3" : "2") + "x" });
      }
    });
    return warnings;
  }

  // Which modules the skin styles, for the Skins screen's "kind" column.
  function kindOf(config) {
    var kinds = [];
    var modules = Object.keys(lightConfig(config));
    if (modules.some(function (m) { return /nav/i.test(m); }) || modules.some(function (m) { return config[m] && config[m].colors; })) kinds.push("navigation");
    if (modules.some(function (m) { return /tab/i.test(m) || Object.keys((config[m] || {}).images || {}).some(function (k) { return /tab/i.test(k); }); })) kinds.push("tab bar");
    if (modules.some(function (m) { return Object.keys((config[m] || {}).images || {}).some(function (k) { return /banner/i.test(k); }); })) kinds.push("banner");
    if (modules.some(function (m) { return /load/i.test(m); })) kinds.push("loading");
    if (config && config.dark) kinds.push("dark");
    return kinds.join(" · ") || "—";
  }

  // The first banner-like image of a config, resolved to a stored file at @2x, for list thumbnails.
  function previewImage(config, paths) {
    var light = lightConfig(config), candidates = [];
    Object.keys(light).forEach(function (module) {
      var images = (light[module] || {}).images || {};
      Object.keys(images).forEach(function (key) {
        var ref = imageReference(images[key]);
        if (ref && ref.name) candidates.push({ key: key, name: ref.name });
      });
    });
    candidates.sort(function (a, b) { return (/banner/i.test(b.key) ? 1 : 0) - (/banner/i.test(a.key) ? 1 : 0); });
    for (var i = 0; i < candidates.length; i++) {
      var path = resolveImage(candidates[i].name, paths, 2);
      if (path) return path;
    }
    return null;
  }

  var versionCache = new Map(); // "id/n" -> Promise<{version, config, paths}>
  function loadVersion(id, number) {
    var key = id + "/" + number;
    if (!versionCache.has(key)) {
      var base = "/skins/" + encodeURIComponent(id) + "/versions/" + number;
      var promise = Promise.all([api("GET", base), api("GET", base + "/config.json")]).then(function (answers) {
        var files = answers[0].data.files || [];
        return { version: answers[0].data, config: answers[1].data || {}, paths: new Set(files.map(function (f) { return f.path; })) };
      });
      promise.catch(function () { versionCache.delete(key); });
      versionCache.set(key, promise);
    }
    return versionCache.get(key);
  }

  // ---------------------------------------------------------------------------------------------------------
  // Screens.

  // A fresh container for a screen. Answers that arrive after the operator moved on fill a detached container,
  // so a slow screen never spills into the next one.
  function screen(title, subtitle) {
    clear(main);
    var root = h("div", { class: "screen" });
    var heading = h("h1", { text: title, tabindex: "-1" });
    root.appendChild(h("div", { class: "screen-head" }, heading, subtitle ? h("p", { class: "muted", text: subtitle }) : null));
    main.appendChild(root);
    document.title = title + " · Livery console";
    heading.focus({ preventScroll: true });
    return root;
  }

  function loading(into) {
    var note = h("p", { class: "muted loading", text: "Loading…" });
    into.appendChild(note);
    return note;
  }

  function fail(into, error) { into.appendChild(errorBox(error)); }

  // Sign in ------------------------------------------------------------------------------------------------
  function renderSignIn(message) {
    document.getElementById("bar").hidden = true;
    clear(main);
    var token = h("input", { type: "password", autocomplete: "off", required: true, spellcheck: "false", placeholder: "livery_…" });
    var status = h("div", { "aria-live": "polite" });
    var form = h("form", { class: "card signin", "aria-labelledby": "signin-title", novalidate: true },
      h("div", { class: "signin-brand" }, h("span", { class: "logo", "aria-hidden": "true" }), h("span", { text: "Livery" })),
      h("h1", { id: "signin-title", text: "Sign in to the console" }),
      h("p", { class: "muted", text: "Paste an admin token (livery token create). It is kept only in this tab and sent as a Bearer token." }),
      field("Admin token", token),
      status,
      h("button", { type: "submit", text: "Sign in" }));
    if (message) status.appendChild(h("div", { class: "error", role: "alert", text: message }));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clear(status);
      var value = token.value.trim();
      if (!value) { status.appendChild(h("div", { class: "error", role: "alert", text: "Enter a token." })); token.focus(); return; }
      api("GET", "/whoami", { token: value }).then(function (answer) {
        sessionStorage.setItem(TOKEN_KEY, value);
        me = answer.data;
        signedIn();
        if (location.hash === "#/skins") route(); else location.hash = "#/skins";
      }, function (error) {
        var text = error.status === 401 ? "That token was refused (" + (error.reason || "unknown") + ")." : error.message;
        status.appendChild(h("div", { class: "error", role: "alert", text: text }));
        token.select();
        token.focus();
      });
    });
    main.appendChild(h("div", { class: "signin-wrap" }, form));
    document.title = "Sign in · Livery console";
    token.focus();
  }

  function signedIn() {
    document.getElementById("bar").hidden = false;
    var who = document.getElementById("who");
    clear(who);
    append(who, [h("span", { class: "who-name", text: me.name }), " ", h("span", { class: "role role-" + me.role, text: me.role })]);
    Array.prototype.forEach.call(document.querySelectorAll("[data-write]"), function (element) {
      if (canWrite()) element.hidden = false; else element.hidden = true;
    });
  }

  function signOut(message) {
    sessionStorage.removeItem(TOKEN_KEY);
    me = null;
    blobCache.forEach(function (promise) { promise.then(function (url) { URL.revokeObjectURL(url); }, function () {}); });
    blobCache.clear();
    versionCache.clear();
    if (location.hash !== "" && location.hash !== "#/") history.replaceState(null, "", location.pathname);
    renderSignIn(message);
  }

  // Skins --------------------------------------------------------------------------------------------------
  function renderSkins() {
    var root = screen("Skins", "Every stored skin, its release and what phones get now.");
    var note = loading(root);
    Promise.all([api("GET", "/skins"), api("GET", "/killswitch")]).then(function (answers) {
      note.remove();
      var skins = answers[0].data.skins, switches = answers[1].data, now = new Date();
      if (switches.global && switches.global.enabled) root.appendChild(h("div", { class: "notice danger", role: "status" }, h("strong", { text: "Global kill switch is on: " }), switches.global.reason));
      if (!skins.length) { root.appendChild(h("p", { class: "empty", text: "No skins yet." })); return; }
      var body = h("tbody");
      skins.forEach(function (skin) {
        var release = skin.release;
        var status = statusOf(skin, switches, now);
        var preview = h("div", { class: "thumb-box" });
        var kind = h("td", { class: "muted", text: "…" });
        var number = release ? release.version : skin.latestVersion;
        if (number) {
          loadVersion(skin.id, number).then(function (loaded) {
            kind.textContent = kindOf(loaded.config);
            var path = previewImage(loaded.config, loaded.paths);
            if (path) preview.appendChild(thumbnail(skin.id, number, path, "preview of " + (skin.title || skin.id)));
          }, function () { kind.textContent = "—"; });
        }
        body.appendChild(h("tr", { "data-skin": skin.id },
          h("td", null, preview),
          h("td", null, h("a", { href: "#/skins/" + encodeURIComponent(skin.id), class: "strong", text: skin.title || skin.id }), h("div", { class: "muted small mono", text: skin.id })),
          h("td", { text: skin.app || "—" }),
          kind,
          h("td", { class: "num", text: release ? "v" + release.version : "—" }, release ? h("div", { class: "muted small release-kind", text: kindText(release) }) : null, skin.latestVersion && (!release || release.version !== skin.latestVersion) ? h("div", { class: "muted small", text: "latest v" + skin.latestVersion }) : null),
          h("td", null, windowCell(release)),
          h("td", { class: "num" }, release ? rolloutBar(release.rollout === undefined ? 100 : release.rollout) : "—"),
          h("td", null, statusBadge(status))));
      });
      root.appendChild(h("div", { class: "card table-card" }, h("table", { class: "table", "aria-label": "Skins" },
        h("thead", null, h("tr", null, ["Preview", "Skin", "App", "Kind", "Released", "Window", "Rollout", "Status"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
        body)));
    }, function (error) { note.remove(); fail(root, error); });
  }

  function rolloutBar(value) {
    return h("div", { class: "rollout" }, h("span", { class: "rollout-track", "aria-hidden": "true" }, h("span", { class: "rollout-fill", style: { width: value + "%" } })), h("span", { text: value + " %" }));
  }

  // Segmented radio controls (light/dark, @1x/@2x/@3x); a fieldset with a legend, so each has a label.
  function segmented(legend, name, options, value, onChange) {
    var set = h("fieldset", { class: "segmented" }, h("legend", { text: legend }));
    options.forEach(function (option) {
      var id = name + "-" + option.value;
      var input = h("input", { type: "radio", name: name, id: id, value: String(option.value), checked: String(option.value) === String(value) });
      input.addEventListener("change", function () { if (input.checked) onChange(option.value); });
      set.appendChild(input);
      set.appendChild(h("label", { for: id, text: option.label }));
    });
    return set;
  }

  // Skin ---------------------------------------------------------------------------------------------------
  function renderSkin(id, params) {
    var root = screen("Skin", null);
    var note = loading(root);
    api("GET", "/skins/" + encodeURIComponent(id)).then(function (answer) {
      note.remove();
      var skin = answer.data, etag = answer.etag;
      root.querySelector("h1").textContent = skin.title || skin.id;
      document.title = (skin.title || skin.id) + " · Livery console";
      var versions = skin.versions.map(function (v) { return v.version; });
      var selected = +(params.version || (skin.release ? skin.release.version : skin.latestVersion));
      var appearance = params.appearance || "light", scale = +(params.scale || 2);

      var head = h("div", { class: "card summary" },
        h("dl", { class: "facts" },
          fact("Skin id", h("code", { text: skin.id })), fact("App", skin.app || "—"),
          fact("Released", skin.release ? "v" + skin.release.version : "not released"),
          fact("Window", windowCell(skin.release)),
          fact("Rollout", skin.release ? [rolloutBar(skin.release.rollout === undefined ? 100 : skin.release.rollout),
            skin.release.paused ? h("div", { class: "small warn-text", text: "paused: " + (skin.release.paused.action === "rollback" ? "the previous version is served" : "serves 0 %") }) : null] : "—"),
          fact("Priority", skin.release ? String(skin.release.priority || 0) : "—"),
          fact("Platforms", skin.release ? (skin.release.platforms || PLATFORMS).join(", ") : "—")),
        h("div", { class: "actions" },
          h("a", { class: "button ghost", href: "#/skins/" + encodeURIComponent(id) + "/phone", text: "Phone preview" }),
          canWrite() ? h("a", { class: "button", href: "#/skins/" + encodeURIComponent(id) + "/release", text: skin.release ? "Change release" : "Release…" }) : null,
          canWrite() && skin.release ? h("button", { type: "button", class: "ghost", text: "Roll back", onclick: function () { rollback(skin, etag); } }) : null,
          canWrite() && skin.release ? h("button", { type: "button", class: "danger", text: "Stop", onclick: function () { stopRelease(skin, etag); } }) : null));
      if (skin.release && skin.release.paused) root.appendChild(pausedBanner(skin, etag));
      root.appendChild(head);
      if (skin.release && skin.release.recurs) root.appendChild(occurrencesCard(skin, etag));
      root.appendChild(healthCard(skin));

      var controls = h("div", { class: "controls" },
        field("Version", h("select", { onchange: function (e) { selected = +e.target.value; draw(); } },
          versions.slice().reverse().map(function (n) { return h("option", { value: n, selected: n === selected, text: "v" + n + (skin.release && skin.release.version === n ? " (released)" : "") }); }))),
        segmented("Appearance", "appearance", [{ value: "light", label: "Light" }, { value: "dark", label: "Dark" }], appearance, function (v) { appearance = v; draw(); }),
        segmented("Scale", "scale", [{ value: 1, label: "@1x" }, { value: 2, label: "@2x" }, { value: 3, label: "@3x" }], scale, function (v) { scale = v; draw(); }));
      root.appendChild(controls);
      var detail = h("div", { class: "skin-detail" });
      root.appendChild(detail);

      root.appendChild(h("h2", { text: "Versions" }));
      root.appendChild(h("div", { class: "card table-card" }, h("table", { class: "table", "aria-label": "Versions" },
        h("thead", null, h("tr", null, ["Version", "Uploaded", "By", "Source", "Files", "Size", "Warnings", "Digest"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
        h("tbody", null, skin.versions.slice().reverse().map(function (v) {
          return h("tr", null, h("td", { class: "num", text: "v" + v.version }), h("td", { text: formatIn(new Date(v.createdAt), viewerZone) }), h("td", { text: v.createdBy }),
            h("td", { text: v.source || "—" }), h("td", { class: "num", text: v.fileCount }), h("td", { class: "num", text: bytes(v.size) }),
            h("td", { class: "num", text: v.warnings === null ? "—" : v.warnings }), h("td", { class: "mono small", text: (v.digest || "").slice(0, 12) }));
        })))));

      function draw() {
        clear(detail);
        var waiting = loading(detail);
        loadVersion(id, selected).then(function (loaded) {
          waiting.remove();
          var overridden = new Set();
          var config = effectiveConfig(loaded.config, appearance, overridden);
          var warnings = configWarnings(loaded.config, loaded.paths);
          var versionInfo = skin.versions.filter(function (v) { return v.version === selected; })[0] || {};
          detail.appendChild(h("div", { class: "grid-2" },
            h("section", { class: "card", "aria-labelledby": "config-title" }, h("h2", { id: "config-title", text: "config.json (" + appearance + ", @" + scale + "x)" }),
              configTree(id, selected, config, loaded.paths, scale, overridden)),
            h("div", null,
              h("section", { class: "card", "aria-labelledby": "warn-title" }, h("h2", { id: "warn-title", text: "Validation warnings" }),
                h("p", { class: "muted small", text: "At upload the server counted " + (versionInfo.warnings === null || versionInfo.warnings === undefined ? "no" : versionInfo.warnings) + " warning(s); this is what the console sees in the stored files." }),
                warnings.length ? h("ul", { class: "warnings" }, warnings.map(function (w) { return h("li", null, h("code", { text: w.pointer }), " ", w.text); })) : h("p", { class: "ok-text", text: "No warnings." })),
              h("section", { class: "card", "aria-labelledby": "files-title" }, h("h2", { id: "files-title", text: "Files (" + loaded.paths.size + ")" }),
                h("ul", { class: "files" }, (loaded.version.files || []).map(function (file) {
                  return h("li", null, isImagePath(file.path) ? thumbnail(id, selected, file.path, file.path, "file-thumb") : h("span", { class: "file-icon", "aria-hidden": "true", text: file.path.split(".").pop() }),
                    h("span", { class: "file-name mono", text: file.path }), h("span", { class: "muted small", text: bytes(file.size) }));
                }))))));
        }, function (error) { waiting.remove(); fail(detail, error); });
      }
      draw();
    }, function (error) { note.remove(); fail(root, error); });
  }

  // Occurrences --------------------------------------------------------------------------------------------
  // A recurring release's next years as the server lists them (nextOccurrences), each one overridable with its own
  // dates or skipped, and each override undone: a merge PATCH of release.occurrences with If-Match, like every write.
  function occurrencesCard(skin, etag) {
    var release = skin.release, zone = release.timeZone || "UTC", title = skin.title || skin.id;
    var overrides = release.occurrences || {}, next = release.nextOccurrences || [];
    var listed = new Set(next.map(function (o) { return String(o.year); }));
    var others = Object.keys(overrides).filter(function (year) { return !listed.has(year); }).sort();
    var formHolder = h("div");
    var card = h("section", { class: "card table-card occurrences", "aria-labelledby": "occurrences-title" },
      h("div", { class: "card-head" },
        h("h2", { id: "occurrences-title", text: "Every year" }),
        h("p", { class: "muted small", text: ruleText(release.recurs) + ", in " + zone + ". The next " + next.length + " years as the server computes them" +
          (canWrite() ? "; override a year with its own dates, or skip it." : ".") })),
      h("table", { class: "table", "aria-label": "Occurrences" },
        h("thead", null, h("tr", null, ["Year", "Starts", "Ends", "Source"].concat(canWrite() ? ["Change"] : []).map(function (t) { return h("th", { scope: "col", text: t }); }))),
        h("tbody", null, next.map(function (o) {
          var year = String(o.year), start = new Date(o.startsAt), end = new Date(o.endsAt);
          var dates = formatZoned(start, zone) + " → " + formatZoned(end, zone);
          var actions = null;
          if (canWrite() && o.source === "rule") {
            actions = [
              h("button", { type: "button", class: "ghost", text: "Override…", "aria-label": "Override " + year + "…", onclick: function () { openOverride(o); } }),
              h("button", { type: "button", class: "ghost", text: "Skip", "aria-label": "Skip " + year, onclick: function () {
                write("Skip " + year + " of " + title + "?", [h("p", { text: "Phones get no skin from this release in " + year + "; the other years keep the rule." }),
                  change(year, dates, "skipped")], "Skip " + year, year, "skip");
              } })];
          } else if (canWrite() && o.source === "override") {
            actions = [
              h("button", { type: "button", class: "ghost", text: "Change dates…", "aria-label": "Change dates of " + year + "…", onclick: function () { openOverride(o); } }),
              h("button", { type: "button", class: "ghost", text: "Undo override", "aria-label": "Undo override " + year, onclick: function () {
                write("Undo the " + year + " override?", [h("p", { text: year + " follows the rule again." }), change(year, dates, "the rule's dates")], "Undo override", year, null);
              } })];
          } else if (canWrite()) {
            actions = [h("button", { type: "button", class: "ghost", text: "Undo skip", "aria-label": "Undo skip " + year, onclick: function () {
              write("Undo skipping " + year + "?", [h("p", { text: "Phones get this release in " + year + " again." }), change(year, "skipped", dates)], "Undo skip", year, null);
            } })];
          }
          return h("tr", { "data-year": year, "data-source": o.source, class: "source-" + o.source },
            h("td", { class: "num strong", text: year }),
            h("td", { text: formatZoned(start, zone) }), h("td", { text: formatZoned(end, zone) }),
            h("td", null, h("span", { class: "status plain status-" + o.source, text: o.source === "skip" ? "skipped" : o.source === "rule" ? "rule" : "override" })),
            canWrite() ? h("td", null, h("div", { class: "actions" }, actions)) : null);
        }))),
      others.length ? h("p", { class: "muted small card-foot", text: "Also overridden: " + others.map(function (year) { return year + (overrides[year] === "skip" ? " (skipped)" : " (own dates)"); }).join(", ") + "." }) : null,
      formHolder);

    function change(year, from, to) {
      return h("ul", { class: "changes" }, h("li", null, h("code", { text: year }), ": ", h("span", { class: "old", text: from }), " → ", h("span", { class: "new", text: to })));
    }

    // Writes occurrences[year] = value ("skip", {startsAt, endsAt}, or null to follow the rule again).
    function write(question, body, okLabel, year, value, into, controls) {
      confirmAction(question, body, okLabel, value === "skip").then(function (ok) {
        if (!ok) return;
        var patch = { occurrences: {} };
        patch.occurrences[year] = value;
        api("PATCH", "/skins/" + encodeURIComponent(skin.id) + "/release", { json: patch, etag: etag }).then(function () {
          showBanner(value === null ? year + " follows the rule again." : value === "skip" ? "Skipped " + year + "." : "Overrode " + year + ".");
          route();
        }, function (error) { writeFailed(error, skin, into || card); if (controls) markField(error, controls); });
      });
    }

    function openOverride(o) {
      clear(formHolder);
      var year = String(o.year), own = overrides[year] && typeof overrides[year] === "object" ? overrides[year] : null;
      function local(text, instant) { return (text && !/(Z|[+-]\d\d:\d\d)$/.test(text) ? text : localText(new Date(instant), zone)).slice(0, 19); }
      var startsAt = h("input", { type: "datetime-local", id: "occurrence-startsAt", step: "1", value: local(own && own.startsAt, o.startsAt) });
      var endsAt = h("input", { type: "datetime-local", id: "occurrence-endsAt", step: "1", value: local(own && own.endsAt, o.endsAt) });
      var status = h("div", { class: "form-status", "aria-live": "polite" });
      var form = h("form", { class: "occurrence-form", "aria-label": "Override " + year, novalidate: true },
        h("h3", { text: "Override " + year + " with its own dates" }),
        status,
        h("div", { class: "form-grid" }, field("Starts at", startsAt, "local time in " + zone + ", inclusive"), field("Ends at", endsAt, "exclusive")),
        h("div", { class: "actions" },
          h("button", { type: "button", class: "ghost", text: "Cancel", onclick: function () { clear(formHolder); } }),
          h("button", { type: "submit", text: "Review override" })));
      var controls = {};
      controls["occurrences/" + year] = startsAt;
      controls["occurrences/" + year + "/startsAt"] = startsAt;
      controls["occurrences/" + year + "/endsAt"] = endsAt;
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        clear(status);
        clearFieldErrors(form);
        var dates = { startsAt: startsAt.value.length === 16 ? startsAt.value + ":00" : startsAt.value, endsAt: endsAt.value.length === 16 ? endsAt.value + ":00" : endsAt.value };
        write("Override " + year + " of " + title + "?", [h("p", { text: "Phones get this release in " + year + " from these dates instead of the rule's (local time in " + zone + ")." }),
          change(year, formatZoned(new Date(o.startsAt), zone) + " → " + formatZoned(new Date(o.endsAt), zone), dates.startsAt + " → " + dates.endsAt)],
          "Override " + year, year, dates, status, controls);
      });
      formHolder.appendChild(form);
      startsAt.focus();
    }
    return card;
  }

  // Health ---------------------------------------------------------------------------------------------------
  // What phones reported about each version (GET …/health): devices applied and failed, the failure rate, failures
  // by stage and platform, and the adoption curve from the hourly series; the release's guard, and its pause.

  var STAGES = ["download", "verify", "unpack", "config", "crash"];
  var SVG_NS = "http://www.w3.org/2000/svg";

  function svg(tag, attrs) {
    var element = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") element.textContent = attrs[key];
      else element.setAttribute(key, attrs[key]);
    });
    for (var i = 2; i < arguments.length; i++) if (arguments[i]) element.appendChild(arguments[i]);
    return element;
  }

  // Failed over all counted devices of a slice, or null without any.
  function failureRate(counts) {
    var applied = counts.applied || 0, failed = counts.failed || 0;
    return applied + failed ? failed / (applied + failed) : null;
  }

  function percent(rate) {
    if (rate === null || rate === undefined) return "—";
    // One decimal at most, and none when it is whole: 25 %, 14.3 %, 7 % (not 7.000000000000001).
    return String(Math.round(rate * 1000) / 10) + " %";
  }

  // "unpack 2 · crash 1", stages in the order a package goes through them, or "—".
  function stagesText(byStage) {
    var keys = Object.keys(byStage || {}).filter(function (k) { return byStage[k]; });
    keys.sort(function (a, b) { return (STAGES.indexOf(a) + 1 || 99) - (STAGES.indexOf(b) + 1 || 99) || (a < b ? -1 : 1); });
    return keys.length ? keys.map(function (k) { return k + " " + byStage[k]; }).join(" · ") : "—";
  }

  function hourText(date) {
    try {
      return new Intl.DateTimeFormat("en-GB", { timeZone: viewerZone, day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(date);
    } catch (e) {
      return date.toISOString().slice(0, 16).replace("T", " ");
    }
  }

  // The guard of a release that names none (docs/ADMIN-API.md, guarded releases); GET shows the guard in force with
  // every member, and fullGuard fills in what a partial one leaves out.
  var STANDARD_GUARD = { maxFailureRate: 0.05, minDevices: 50, windowMinutes: 60, action: "pause" };
  var GUARD_KEYS = ["maxFailureRate", "minDevices", "windowMinutes", "action"];

  function fullGuard(guard) {
    var full = {};
    GUARD_KEYS.forEach(function (key) { full[key] = guard && guard[key] !== undefined && guard[key] !== null ? guard[key] : STANDARD_GUARD[key]; });
    return full;
  }

  function sameGuard(a, b) { return JSON.stringify(fullGuard(a)) === JSON.stringify(fullGuard(b)); }

  // "pause above 5 % of ≥ 50 devices in 60 min", or "off".
  function guardText(guard) {
    var g = fullGuard(guard);
    if (g.action === "none") return "off (action none)";
    return g.action + " above " + percent(g.maxFailureRate) + " failed of ≥ " + g.minDevices + " reporting devices in " + g.windowMinutes + " min";
  }

  function guardSentence(guard) {
    var g = fullGuard(guard);
    if (g.action === "none") return "Off: this release never pauses by itself (action none).";
    return (g.action === "rollback" ? "Serves the previous version" : "Pauses the release (rollout 0)") + " when more than " + percent(g.maxFailureRate) +
      " of the devices reporting on it in the last " + g.windowMinutes + " minutes failed, once at least " + g.minDevices + " devices reported.";
  }

  // The version a rollback pause serves: the one below the released version (what POST /rollback picks).
  function previousVersion(skin) {
    var below = skin.versions.filter(function (v) { return v.version < skin.release.version; });
    return below.length ? below[below.length - 1].version : null;
  }

  // A paused release, stated at the top of the Skin screen: when, what the guard did, the figures that tripped it,
  // the rollout before; an editor resumes it (PATCH {"paused": null} with If-Match).
  function pausedBanner(skin, etag) {
    var release = skin.release, paused = release.paused, figures = paused.figures || {};
    var rate = figures.failureRate !== undefined ? figures.failureRate : figures.reportingDevices ? figures.failedDevices / figures.reportingDevices : null;
    var before = paused.rollout === undefined ? 100 : paused.rollout;
    var previous = previousVersion(skin);
    var title = skin.title || skin.id;
    var did = paused.action === "rollback"
      ? (previous ? "It serves the previous version, v" + previous + ", at rollout " + before + " % instead of v" + release.version + "." : "There is no previous version, so it serves rollout 0.")
      : "Phones are served rollout 0: no device is offered v" + release.version + " (the rollout was " + before + " %).";
    var banner = h("section", { class: "paused-banner", role: "alert", "aria-labelledby": "paused-title", "data-action": paused.action },
      h("h2", { id: "paused-title", text: (paused.action === "rollback" ? "Rolled back by its guard" : "Paused by its guard") + " at " + formatIn(new Date(paused.at), viewerZone) }),
      h("p", null, (figures.failedDevices !== undefined ? figures.failedDevices + " of " + figures.reportingDevices + " reporting devices failed (" + percent(rate) + ")" : "The failure rate crossed the guard's line") +
        ", above its " + percent(fullGuard(release.guard).maxFailureRate) + ". " + did),
      h("dl", { class: "facts paused-figures" },
        fact("Action", paused.action),
        fact("Reporting devices", figures.reportingDevices === undefined ? "—" : String(figures.reportingDevices)),
        fact("Failed devices", figures.failedDevices === undefined ? "—" : String(figures.failedDevices)),
        fact("Failure rate", percent(rate)),
        fact("Failed by stage", stagesText(figures.failedByStage)),
        fact("Rollout before", before + " %")),
      canWrite()
        ? h("div", { class: "actions" }, h("span", { class: "small", text: "Fix the cause first: after a resume the guard counts the window's reports again." }),
            h("button", { type: "button", text: "Resume", onclick: function () { resume(); } }))
        : h("p", { class: "small", text: "An editor resumes it (livery release " + skin.id + " --resume)." }));

    function resume() {
      confirmAction("Resume " + title + "?", [
        h("p", { text: "Phones are offered v" + release.version + " again at the rollout from before the pause." }),
        h("ul", { class: "changes" },
          h("li", null, h("code", { text: "paused" }), ": ", h("span", { class: "old", text: paused.at + " (" + paused.action + ")" }), " → ", h("span", { class: "new", text: "—" })),
          h("li", null, "served: ", h("span", { class: "old", text: paused.action === "rollback" && previous ? "v" + previous + " at " + before + " %" : "rollout 0 %" }), " → ",
            h("span", { class: "new", text: "v" + release.version + " at " + before + " %" }))),
        h("p", { class: "muted small", text: "The guard still holds: " + guardText(release.guard) + "." })], "Resume at " + before + " %").then(function (ok) {
        if (!ok) return;
        api("PATCH", "/skins/" + encodeURIComponent(skin.id) + "/release", { json: { paused: null }, etag: etag }).then(function () {
          showBanner("Resumed " + skin.id + " at rollout " + before + " %.");
          route();
        }, function (error) { writeFailed(error, skin, banner); });
      });
    }
    return banner;
  }

  function healthCard(skin) {
    var card = h("section", { class: "card health", "aria-labelledby": "health-title" },
      h("div", { class: "card-head" }, h("h2", { id: "health-title", text: "Health" }),
        h("p", { class: "muted small", text: "What phones reported, per version, over the whole history: each device counts once per package and outcome." })));
    var note = loading(card);
    api("GET", "/skins/" + encodeURIComponent(skin.id) + "/health").then(function (answer) {
      note.remove();
      var data = answer.data || {}, versions = data.versions || [];
      var guard = (skin.release && skin.release.guard) || data.guard || null;
      if (skin.release && guard) {
        card.appendChild(h("p", { class: "guard-line" }, h("strong", { text: "Guard of v" + skin.release.version + ": " }), guardSentence(guard)));
      }
      if (!versions.length) {
        card.appendChild(h("p", { class: "empty health-empty", text: "No reports yet. Phones report each package they apply, or fail to, and the figures show here." }));
        return;
      }
      card.appendChild(h("table", { class: "table", "aria-label": "Health by version" },
        h("thead", null, h("tr", null, ["Version", "Devices applied", "Devices failed", "Failure rate", "Failed by stage"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
        h("tbody", null, versions.map(function (v) {
          var rate = failureRate(v);
          return h("tr", { "data-version": v.version },
            h("td", { class: "num strong" }, "v" + v.version, skin.release && skin.release.version === v.version ? h("span", { class: "tag", text: "released" }) : null),
            h("td", { class: "num", "data-field": "applied", text: v.applied || 0 }), h("td", { class: "num", "data-field": "failed", text: v.failed || 0 }),
            h("td", { class: "num", "data-field": "rate" }, h("span", { class: rate && skin.release && guard && fullGuard(guard).action !== "none" && rate > fullGuard(guard).maxFailureRate ? "rate-over" : null, text: percent(rate) })),
            h("td", { "data-field": "stages", text: stagesText(v.failedByStage) }));
        }))));
      versions.forEach(function (v) { card.appendChild(versionHealth(v)); });
    }, function (error) {
      note.remove();
      card.appendChild(error.status === 404 ? h("p", { class: "muted", text: "This server does not count reports yet (no /health)." }) : errorBox(error));
    });
    return card;
  }

  // One version: by platform (and app version), and its adoption curve with the hours as a table.
  function versionHealth(v) {
    var platforms = v.byPlatform || {};
    var rows = [];
    Object.keys(platforms).sort().forEach(function (name) {
      var p = platforms[name];
      rows.push(h("tr", { "data-platform": name }, h("th", { scope: "row", text: name }), h("td", { class: "num", text: p.applied || 0 }), h("td", { class: "num", text: p.failed || 0 }),
        h("td", { class: "num", text: percent(failureRate(p)) }), h("td", { text: stagesText(p.failedByStage) })));
      var apps = p.byAppVersion || {};
      Object.keys(apps).sort().forEach(function (appVersion) {
        var a = apps[appVersion];
        rows.push(h("tr", { class: "sub", "data-platform": name, "data-app-version": appVersion }, h("th", { scope: "row", class: "muted", text: "app " + appVersion }),
          h("td", { class: "num", text: a.applied || 0 }), h("td", { class: "num", text: a.failed || 0 }), h("td", { class: "num", text: percent(failureRate(a)) }), h("td", { text: stagesText(a.failedByStage) })));
      });
    });
    return h("div", { class: "version-health", "data-version": v.version },
      h("h3", { text: "v" + v.version }),
      h("div", { class: "grid-2" },
        h("table", { class: "table compact", "aria-label": "v" + v.version + " by platform" },
          h("thead", null, h("tr", null, ["Platform", "Applied", "Failed", "Rate", "By stage"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
          h("tbody", null, rows.length ? rows : h("tr", null, h("td", { colspan: "5", class: "muted", text: "—" })))),
        adoption(v)));
  }

  // Devices that applied the version, added up hour by hour (the hours without reports count zero), with failures
  // beside them: inline SVG, and the same figures as a table for screen readers and copying.
  function adoption(v) {
    var series = (v.series || []).map(function (s) { return { at: new Date(s.at), applied: s.applied || 0, failed: s.failed || 0 }; })
      .filter(function (s) { return !isNaN(s.at.getTime()); }).sort(function (a, b) { return a.at - b.at; });
    var id = "adoption-" + v.version;
    if (!series.length) return h("p", { class: "muted", text: "No hours recorded." });
    var hour = 3600e3, start = series[0].at.getTime(), end = series[series.length - 1].at.getTime() + hour;
    var points = [{ t: start, applied: 0, failed: 0 }], applied = 0, failed = 0;
    series.forEach(function (s) { applied += s.applied; failed += s.failed; points.push({ t: s.at.getTime() + hour, applied: applied, failed: failed }); });
    var W = 520, H = 180, left = 44, right = 12, top = 12, bottom = 28;
    var top_ = Math.max(1, applied, failed);
    function x(t) { return left + (W - left - right) * (t - start) / (end - start); }
    function y(n) { return top + (H - top - bottom) * (1 - n / top_); }
    // Each hour's devices count at the hour's end (they are known once it is over), with straight lines between.
    function path(key) { return points.map(function (p, i) { return (i ? "L" : "M") + x(p.t).toFixed(1) + " " + y(p[key]).toFixed(1); }).join(" "); }
    var last = points[points.length - 1];
    var summary = "From 0 at " + hourText(new Date(start)) + " to " + applied + " devices applied by " + hourText(new Date(end)) + ", " + failed + " failed.";
    var chart = svg("svg", { viewBox: "0 0 " + W + " " + H, class: "adoption-chart", role: "img", "aria-labelledby": id + "-title " + id + "-desc" },
      svg("title", { id: id + "-title", text: "Adoption of v" + v.version + ": devices applied over time" }),
      svg("desc", { id: id + "-desc", text: summary }),
      svg("line", { x1: left, x2: W - right, y1: y(0), y2: y(0), class: "axis-line" }),
      svg("line", { x1: left, x2: W - right, y1: y(top_), y2: y(top_), class: "grid-line" }),
      svg("text", { x: left - 6, y: y(0) + 4, "text-anchor": "end", class: "axis-text", text: "0" }),
      svg("text", { x: left - 6, y: y(top_) + 4, "text-anchor": "end", class: "axis-text", text: String(top_) }),
      svg("text", { x: left, y: H - 8, class: "axis-text", text: hourText(new Date(start)) }),
      svg("text", { x: W - right, y: H - 8, "text-anchor": "end", class: "axis-text", text: hourText(new Date(end)) }),
      svg("path", { d: path("applied") + " L" + x(last.t).toFixed(1) + " " + y(0).toFixed(1) + " L" + x(start).toFixed(1) + " " + y(0).toFixed(1) + " Z", class: "area-applied" }),
      svg("path", { d: path("applied"), class: "line-applied" }),
      svg("path", { d: path("failed"), class: "line-failed" }));
    var cumulative = 0;
    return h("figure", { class: "adoption" }, chart,
      h("figcaption", { class: "small" }, h("span", { class: "key key-applied", "aria-hidden": "true" }), " devices applied, added up  ",
        h("span", { class: "key key-failed", "aria-hidden": "true" }), " failed, added up"),
      h("details", null, h("summary", { text: "Hour by hour (" + series.length + ")" }),
        h("table", { class: "table compact", "aria-label": "v" + v.version + " hour by hour" },
          h("thead", null, h("tr", null, ["Hour", "Applied", "Failed", "Applied so far"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
          h("tbody", null, series.map(function (s) {
            cumulative += s.applied;
            return h("tr", { "data-at": s.at.toISOString() }, h("td", { text: hourText(s.at) }), h("td", { class: "num", text: s.applied }), h("td", { class: "num", text: s.failed }), h("td", { class: "num", text: cumulative }));
          })))));
  }

  function fact(label, value) { return h("div", null, h("dt", { text: label }), h("dd", null, value)); }

  function bytes(n) {
    if (n === undefined || n === null) return "—";
    if (n < 1024) return n + " B";
    if (n < 1048576) return (n / 1024).toFixed(1) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }

  // The config as a tree: modules → sections → identifiers; colours as swatches, images as thumbnails.
  function configTree(id, version, config, paths, scale, overridden) {
    var tree = h("ul", { class: "tree", role: "tree", "aria-label": "config.json" });
    Object.keys(config).forEach(function (module) {
      var sections = config[module];
      var moduleItem = h("li", { role: "treeitem", "aria-expanded": "true" }, h("span", { class: "tree-module mono", text: module }));
      var sectionList = h("ul", { role: "group" });
      Object.keys(sections || {}).forEach(function (section) {
        var ids = sections[section] || {};
        var sectionItem = h("li", { role: "treeitem", "aria-expanded": "true" }, h("span", { class: "tree-section", text: section }));
        var idList = h("ul", { role: "group" });
        Object.keys(ids).forEach(function (key) {
          idList.appendChild(h("li", { role: "treeitem", class: "tree-leaf" }, h("span", { class: "tree-key mono", text: key }),
            valueView(id, version, section, ids[key], paths, scale),
            overridden.has(module + "/" + section + "/" + key) ? h("span", { class: "tag", text: "dark" }) : null));
        });
        sectionItem.appendChild(idList);
        sectionList.appendChild(sectionItem);
      });
      moduleItem.appendChild(sectionList);
      tree.appendChild(moduleItem);
    });
    return tree;
  }

  function valueView(id, version, section, value, paths, scale) {
    var text = typeof value === "string" ? value : JSON.stringify(value);
    if (section === "colors") return h("span", { class: "tree-value" }, swatch(value), h("code", { text: text }));
    if (section === "images") {
      var ref = imageReference(value);
      var visual = null;
      if (ref && ref.color) visual = swatch(ref.color);
      else if (ref && ref.name) {
        var path = resolveImage(ref.name, paths, scale);
        visual = path ? thumbnail(id, version, path, ref.name + " at @" + scale + "x", "tree-thumb") : h("span", { class: "tag warn", text: "missing" });
        if (path) return h("span", { class: "tree-value" }, visual, h("code", { text: text }), h("span", { class: "muted small", text: "→ " + path }));
      } else if (ref && ref.remote) visual = h("span", { class: "tag", text: "remote" });
      return h("span", { class: "tree-value" }, visual, h("code", { text: text }));
    }
    if (section === "resources" && typeof value === "string" && isImagePath(value) && paths.has(value)) {
      return h("span", { class: "tree-value" }, thumbnail(id, version, value, value, "tree-thumb"), h("code", { text: text }));
    }
    return h("span", { class: "tree-value" }, h("code", { text: text }));
  }

  // Writes on a skin: each confirms first, sends If-Match, and shows a 412 as what changed ---------------------
  function describeRelease(release) {
    if (!release) return "not released";
    var when = release.recurs ? "every year, " + ruleText(release.recurs) + " in " + release.timeZone
      : release.startsAt ? release.startsAt + " → " + release.endsAt + (release.timeZone ? " " + release.timeZone : "") : "no window";
    return "v" + release.version + (isTheme(release) ? " as a " + kindText(release) : "") + ", " + when +
      ", rollout " + (release.rollout === undefined ? 100 : release.rollout) + " %, priority " + (release.priority || 0);
  }

  function changeList(before, after, fields) {
    var rows = [];
    fields.forEach(function (name) {
      var a = before ? before[name] : undefined, b = after ? after[name] : undefined;
      if (JSON.stringify(a) !== JSON.stringify(b)) rows.push(h("li", null, h("code", { text: name }), ": ", h("span", { class: "old", text: show(a) }), " → ", h("span", { class: "new", text: show(b) })));
    });
    return rows.length ? h("ul", { class: "changes" }, rows) : h("p", { class: "muted", text: "Nothing changes." });
  }
  function show(value) {
    if (value === undefined || value === null) return "—";
    if (typeof value === "object" && value.calendar) return ruleText(value);
    if (typeof value === "object" && value.figures) return "paused by its guard at " + value.at + " (" + value.action + ", rollout before " + value.rollout + " %)";
    if (typeof value === "object" && GUARD_KEYS.some(function (key) { return value[key] !== undefined; })) return guardText(value);
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  var RELEASE_FIELDS = ["version", "kind", "order", "startsAt", "endsAt", "timeZone", "priority", "platforms", "minAppVersion", "maxAppVersion", "rollout"];
  // What a 412 lists as changed: every field of a release, its rule and overrides, and who released it.
  var CONFLICT_FIELDS = RELEASE_FIELDS.concat(["recurs", "occurrences", "guard", "paused", "releasedBy"]);

  // A 422's field (details.field, such as "recurs/day" or "occurrences/2027/endsAt") shown next to its control in
  // `controls` (field name → control), the nearest named parent when the field itself has none; returns the control.
  function markField(error, controls) {
    if (!error || !error.field || error.status !== 422) return null;
    var name = error.field.replace(/^\//, "");
    while (name && !controls[name]) name = name.indexOf("/") >= 0 ? name.slice(0, name.lastIndexOf("/")) : "";
    var control = name ? controls[name] : null;
    if (!control) return null;
    var holder = control.closest(".field") || control.parentNode;
    var note = h("span", { class: "field-error", id: control.id + "-error", text: error.reason || error.message });
    holder.appendChild(note);
    control.setAttribute("aria-invalid", "true");
    control.setAttribute("aria-describedby", note.id);
    control.focus();
    return control;
  }

  function clearFieldErrors(form) {
    Array.prototype.forEach.call(form.querySelectorAll(".field-error"), function (note) { note.remove(); });
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (control) {
      control.removeAttribute("aria-invalid");
      control.removeAttribute("aria-describedby");
    });
  }

  // After a 412: fetch the skin as it is now and show what another operator changed.
  function showConflict(id, before, into) {
    return api("GET", "/skins/" + encodeURIComponent(id)).then(function (answer) {
      var box = h("div", { class: "conflict", role: "alert" },
        h("strong", { text: "Someone else changed this skin since you opened it (412 precondition_failed). Nothing was written." }),
        h("p", { text: "What changed:" }),
        changeList(before ? before.release : null, answer.data.release, CONFLICT_FIELDS),
        h("p", { class: "muted small", text: "Reload to work on the current state." }),
        h("button", { type: "button", text: "Reload", onclick: function () { route(); } }));
      (into || main.firstElementChild || main).prepend(box);
      box.querySelector("button").focus();
    });
  }

  function writeFailed(error, skin, into) {
    if (error.status === 412) return showConflict(skin.id, skin, into);
    var target = into || main.firstElementChild || main;
    var box = errorBox(error);
    target.prepend(box);
    box.scrollIntoView({ block: "nearest" });
  }

  function stopRelease(skin, etag) {
    confirmAction("Stop " + (skin.title || skin.id) + "?", [h("p", { text: "Phones stop getting this skin at once." }), changeList(skin.release, null, ["version", "startsAt", "endsAt", "rollout"])], "Stop serving", true).then(function (ok) {
      if (!ok) return;
      api("DELETE", "/skins/" + encodeURIComponent(skin.id) + "/release", { etag: etag }).then(function () {
        showBanner("Stopped " + skin.id + ".");
        route();
      }, function (error) { writeFailed(error, skin); });
    });
  }

  function rollback(skin, etag) {
    var previous = skin.versions.filter(function (v) { return v.version < skin.release.version; }).pop();
    if (!previous) { (main.firstElementChild || main).prepend(errorBox(new ApiError(409, { error: { code: "no_previous_version", message: "There is no version below v" + skin.release.version + " to roll back to." } }))); return; }
    confirmAction("Roll back " + (skin.title || skin.id) + "?", [h("p", { text: "Releases the previous version with the same settings." }),
      h("ul", { class: "changes" }, h("li", null, h("code", { text: "version" }), ": ", h("span", { class: "old", text: "v" + skin.release.version }), " → ", h("span", { class: "new", text: "v" + previous.version }))),
      h("p", { class: "muted small", text: describeRelease(skin.release) })], "Roll back", true).then(function (ok) {
      if (!ok) return;
      api("POST", "/skins/" + encodeURIComponent(skin.id) + "/rollback", { etag: etag }).then(function () {
        showBanner("Rolled " + skin.id + " back to v" + previous.version + ".");
        route();
      }, function (error) { writeFailed(error, skin); });
    });
  }

  // Release ------------------------------------------------------------------------------------------------
  function renderRelease(id) {
    var root = screen("Release", null);
    var note = loading(root);
    api("GET", "/skins/" + encodeURIComponent(id)).then(function (answer) {
      note.remove();
      var skin = answer.data, etag = answer.etag, current = skin.release;
      root.querySelector("h1").textContent = "Release " + (skin.title || skin.id);
      if (!canWrite()) { root.appendChild(h("p", { class: "muted", text: "Your token is read-only: viewers cannot release." })); return; }
      var zone = (current && current.timeZone) || viewerZone;
      // A theme may have no window: the form then offers one from now, unticked.
      var currentWindow = windowOf(current);
      var start = currentWindow ? currentWindow.start : new Date(Date.now() + 3600e3);
      var end = currentWindow ? currentWindow.end : new Date(Date.now() + 8 * 86400e3);
      var startsLocal = currentWindow && current.timeZone && current.startsAt && !/(Z|[+-]\d\d:\d\d)$/.test(current.startsAt) ? current.startsAt : localText(start, zone);
      var endsLocal = currentWindow && current.timeZone && current.endsAt && !/(Z|[+-]\d\d:\d\d)$/.test(current.endsAt) ? current.endsAt : localText(end, zone);
      var kind = h("select", { id: "release-kind" }, [{ value: "holiday", text: "Holiday skin (phones get it in its window)" }, { value: "theme", text: "Theme (users pick it from the list)" }].map(function (k) {
        return h("option", { value: k.value, selected: (isTheme(current) ? "theme" : "holiday") === k.value, text: k.text });
      }));
      var order = h("input", { type: "number", id: "release-order", min: "0", max: "1000000", step: "1", value: isTheme(current) && current.order !== null && current.order !== undefined ? current.order : "", placeholder: "none: after ordered themes" });
      var windowed = h("input", { type: "checkbox", id: "release-windowed", checked: !current || !!currentWindow || !!current.recurs });
      var version = h("select", { id: "release-version" }, skin.versions.slice().reverse().map(function (v) { return h("option", { value: v.version, selected: current ? v.version === current.version : v.version === skin.latestVersion, text: "v" + v.version + " · " + formatIn(new Date(v.createdAt), viewerZone) }); }));
      var startsAt = h("input", { type: "datetime-local", id: "release-startsAt", step: "1", value: startsLocal.slice(0, 19), required: true });
      var endsAt = h("input", { type: "datetime-local", id: "release-endsAt", step: "1", value: endsLocal.slice(0, 19), required: true });
      var timeZone = h("input", { type: "text", id: "release-timeZone", value: zone, list: "zones", required: true, autocomplete: "off" });
      var zones = h("datalist", { id: "zones" }, (Intl.supportedValuesOf ? Intl.supportedValuesOf("timeZone") : [zone]).map(function (z) { return h("option", { value: z }); }));
      var priority = h("input", { type: "number", id: "release-priority", step: "1", value: current ? current.priority || 0 : 0 });
      var platforms = h("fieldset", { class: "checks" }, h("legend", { text: "Platforms" }), PLATFORMS.map(function (p) {
        var box = h("input", { type: "checkbox", id: "platform-" + p, value: p, checked: !current || !current.platforms || current.platforms.indexOf(p) >= 0 });
        return h("span", { class: "check" }, box, h("label", { for: box.id, text: p }));
      }));
      var minVersion = h("input", { type: "text", id: "release-minAppVersion", value: current && current.minAppVersion || "", placeholder: "e.g. 7.0.0", autocomplete: "off" });
      var maxVersion = h("input", { type: "text", id: "release-maxAppVersion", value: current && current.maxAppVersion || "", placeholder: "none", autocomplete: "off" });
      var currentRollout = current ? (current.rollout === undefined ? 100 : current.rollout) : 0;
      var rollout = h("input", { type: "range", min: "0", max: "100", step: "1", value: current ? currentRollout : 5, "aria-valuetext": (current ? currentRollout : 5) + " percent" });
      var rolloutOut = h("output", { for: "", class: "rollout-value", text: rollout.value + " %" });
      var accepted = +rollout.value;
      rollout.addEventListener("input", function () { rolloutOut.textContent = rollout.value + " %"; rollout.setAttribute("aria-valuetext", rollout.value + " percent"); });
      rollout.addEventListener("change", function () {
        var value = +rollout.value;
        if (current && value < currentRollout && value < accepted) {
          confirmAction("Lower the rollout?", [h("p", { text: "Lowering from " + currentRollout + " % to " + value + " % takes the skin away from devices that already have it." })], "Lower to " + value + " %", true).then(function (ok) {
            if (ok) accepted = value; else { rollout.value = accepted; rolloutOut.textContent = accepted + " %"; }
            rollout.focus();
          });
        } else accepted = value;
      });

      // The window: dates once, or a rule every year (a festival from the list, or entered by hand).
      var mode = segmented("Window", "window-mode", [{ value: "dates", label: "Dates, once" }, { value: "rule", label: "Every year (a rule)" }],
        current && current.recurs ? "rule" : "dates", function () { syncKind(); });
      mode.classList.add("wide");
      var byRule = mode.querySelector("input[value=rule]");
      var festival = h("select", { id: "recurs-festival" }, [h("option", { value: "", text: "None: the rule below, entered by hand" })].concat(FESTIVALS.map(function (f) { return h("option", { value: f.key, text: f.label }); })));
      var calendar = h("select", { id: "recurs-calendar" }, [{ value: "chinese", text: "Chinese (lunisolar)" }, { value: "gregorian", text: "Gregorian" }].map(function (c) { return h("option", { value: c.value, text: c.text }); }));
      var month = h("input", { type: "number", id: "recurs-month", min: "1", max: "12", step: "1" });
      var leapMonth = h("input", { type: "checkbox", id: "recurs-leapMonth" });
      var day = h("input", { type: "number", id: "recurs-day", min: "1", max: "31", step: "1" });
      var startOffset = h("input", { type: "number", id: "recurs-startOffsetDays", min: "-366", max: "366", step: "1" });
      var endOffset = h("input", { type: "number", id: "recurs-endOffsetDays", min: "-366", max: "366", step: "1" });
      var startTime = h("input", { type: "time", id: "recurs-startTime", step: "1" });
      var endTime = h("input", { type: "time", id: "recurs-endTime", step: "1" });
      var ifMissing = h("select", { id: "recurs-ifMissing" }, [{ value: "refuse", text: "Refuse the rule (default)" }, { value: "skip", text: "Skip that year" }, { value: "lastDay", text: "Use the month's last day" }].map(function (o) { return h("option", { value: o.value, text: o.text }); }));
      var ruleControls = { calendar: calendar, month: month, leapMonth: leapMonth, day: day, startOffsetDays: startOffset, endOffsetDays: endOffset, startTime: startTime, endTime: endTime, ifMissing: ifMissing };
      function fillRule(rule) {
        var r = fullRule(rule);
        calendar.value = r.calendar || "chinese"; month.value = r.month === undefined || r.month === null ? "" : r.month;
        day.value = r.day === undefined || r.day === null ? "" : r.day; leapMonth.checked = !!r.leapMonth;
        startOffset.value = r.startOffsetDays; endOffset.value = r.endOffsetDays;
        startTime.value = r.startTime; endTime.value = r.endTime; ifMissing.value = r.ifMissing;
      }
      // A number field as typed: a whole number, or the text itself so that the server's 422 names it.
      function number(input) { var text = input.value.trim(); return text === "" ? undefined : /^-?\d+$/.test(text) ? +text : text; }
      function seconds(input) { return input.value.length === 5 ? input.value + ":00" : input.value || undefined; }
      function readRule() {
        var rule = { calendar: calendar.value, month: number(month), day: number(day), leapMonth: calendar.value === "chinese" && leapMonth.checked,
          startOffsetDays: number(startOffset), endOffsetDays: number(endOffset), startTime: seconds(startTime), endTime: seconds(endTime), ifMissing: ifMissing.value };
        return fullRule(rule);
      }
      function syncRule() {
        leapMonth.disabled = calendar.value !== "chinese";
        if (leapMonth.disabled) leapMonth.checked = false;
        day.max = calendar.value === "chinese" ? "30" : "31";
        var found = festivalOf(readRule());
        festival.value = found ? found.key : "";
      }
      festival.addEventListener("change", function () {
        var chosen = FESTIVALS.filter(function (f) { return f.key === festival.value; })[0];
        if (!chosen) return;
        fillRule(chosen.recurs);
        timeZone.value = FESTIVAL_ZONE;
        syncRule();
      });
      Object.keys(ruleControls).forEach(function (key) { ruleControls[key].addEventListener("input", syncRule); ruleControls[key].addEventListener("change", syncRule); });
      // A new rule starts blank: a festival from the list, or the anchor day typed in.
      fillRule(current && current.recurs ? current.recurs : { calendar: "chinese" });
      syncRule();
      var ruleBox = h("fieldset", { class: "rule wide", "aria-describedby": "rule-hint" },
        h("legend", { text: "Every year" }),
        h("div", { class: "form-grid" },
          h("div", { class: "span-2" }, field("Festival", festival, "fills in the rule and Asia/Shanghai")),
          field("Calendar", calendar),
          field("Month", month, "1 to 12"),
          h("span", { class: "check" }, leapMonth, h("label", { for: leapMonth.id, text: "Leap month (Chinese calendar)" })),
          field("Day", day, "of the month: 1 to 30 Chinese, 1 to 31 Gregorian"),
          field("Starts, days from that day", startOffset, "negative: before it, e.g. −7"),
          field("Ends, days from that day", endOffset, "e.g. 15; −1 with a start of −1 is the day before"),
          field("Start time", startTime, "local time in the time zone"),
          field("End time", endTime, "exclusive: 23:59:59 leaves out the last second"),
          field("A year without that day", ifMissing)),
        h("p", { class: "hint", id: "rule-hint", text: current && current.recurs
          ? "Each year's dates are computed by the server; see and override them on the skin's screen. A changed rule keeps the years you overrode or skipped."
          : "Each year's dates are computed by the server; after releasing, the skin's screen lists them and lets you override or skip a year." }));

      // The guard: when the release pauses itself (release.guard; the standard one when the release names none).
      var shownGuard = fullGuard(current && current.guard);
      var guardAction = h("select", { id: "guard-action" }, [{ value: "pause", text: "Pause: serve rollout 0" }, { value: "rollback", text: "Roll back: serve the previous version" }, { value: "none", text: "None: the guard is off" }].map(function (a) {
        return h("option", { value: a.value, selected: shownGuard.action === a.value, text: a.text });
      }));
      var guardRate = h("input", { type: "number", id: "guard-maxFailureRate", min: "0", max: "100", step: "0.1", value: String(+(shownGuard.maxFailureRate * 100).toFixed(4)) });
      var guardDevices = h("input", { type: "number", id: "guard-minDevices", min: "1", step: "1", value: shownGuard.minDevices });
      var guardWindow = h("input", { type: "number", id: "guard-windowMinutes", min: "1", max: "43200", step: "1", value: shownGuard.windowMinutes });
      var guardBox = h("fieldset", { class: "rule wide guard", "aria-describedby": "guard-hint" },
        h("legend", { text: "Guard" }),
        h("div", { class: "form-grid" },
          field("When it trips", guardAction),
          field("Max failure rate (%)", guardRate, "trips above this share of reporting devices"),
          field("Min devices", guardDevices, "reporting devices needed before the rate counts"),
          field("Window (minutes)", guardWindow, "how far back reports count")),
        h("p", { class: "hint", id: "guard-hint", text: "Phones report each package's outcome; the guard pauses this release by itself when too many fail. Default: pause above 5 % of at least 50 devices in 60 minutes." }));
      function syncGuard() { [guardRate, guardDevices, guardWindow].forEach(function (input) { input.disabled = guardAction.value === "none"; }); }
      guardAction.addEventListener("change", syncGuard);
      syncGuard();
      // The guard as typed: a percentage becomes a fraction; text that is no number goes as typed, so that the
      // server's 422 names the field.
      function readGuard() {
        var rate = guardRate.value.trim();
        return fullGuard({
          maxFailureRate: rate === "" ? undefined : /^\d+(\.\d+)?$/.test(rate) ? Math.round(+rate * 1e6) / 1e8 : rate,
          minDevices: number(guardDevices), windowMinutes: number(guardWindow), action: guardAction.value });
      }

      var status = h("div", { class: "form-status", "aria-live": "polite" });
      var startsField = field("Starts at", startsAt, "inclusive"), endsField = field("Ends at", endsAt, "exclusive");
      var form = h("form", { class: "card form", "aria-label": "Release settings", novalidate: true },
        status,
        h("div", { class: "form-grid" },
          field("Version", version),
          field("Time zone", timeZone, "IANA name; the window is local time there"),
          mode,
          ruleBox,
          startsField,
          endsField,
          field("Priority", priority, "higher wins when windows overlap"),
          field("Kind", kind, "a theme is listed by /api/v1/themes, never a poll's answer"),
          field("Order", order, "themes only: listed ascending, 1 first"),
          h("span", { class: "check" }, windowed, h("label", { for: "release-windowed", text: "Only within the window (a holiday skin always has one)" })),
          platforms,
          field("Minimum app version", minVersion, "inclusive; empty for none"),
          field("Maximum app version", maxVersion, "exclusive; empty for none"),
          h("div", { class: "field rollout-field" }, h("label", { for: "rollout", text: "Rollout" }), h("div", { class: "slider" }, rollout, rolloutOut), h("span", { class: "hint", text: "share of devices (sticky buckets); lowering asks first" })),
          guardBox),
        zones,
        h("div", { class: "actions" },
          h("a", { class: "button ghost", href: "#/skins/" + encodeURIComponent(id), text: "Cancel" }),
          h("button", { type: "submit", text: current ? "Review changes" : "Review release" })));
      // Where a 422 names a field, the message shows next to that control.
      var controls = { version: version, timeZone: timeZone, startsAt: startsAt, endsAt: endsAt, priority: priority, kind: kind, order: order,
        platforms: platforms.querySelector("input"), minAppVersion: minVersion, maxAppVersion: maxVersion, rollout: rollout, recurs: festival,
        guard: guardAction, "guard/action": guardAction, "guard/maxFailureRate": guardRate, "guard/minDevices": guardDevices, "guard/windowMinutes": guardWindow };
      Object.keys(ruleControls).forEach(function (key) { controls["recurs/" + key] = ruleControls[key]; });
      // Order and an open-ended window are for themes; a holiday skin always has a window, by dates or by a rule.
      function syncKind() {
        var theme = kind.value === "theme";
        order.disabled = !theme;
        windowed.disabled = !theme;
        if (!theme) windowed.checked = true;
        var rule = windowed.checked && byRule.checked;
        Array.prototype.forEach.call(mode.querySelectorAll("input"), function (input) { input.disabled = !windowed.checked; });
        timeZone.disabled = !windowed.checked; timeZone.required = windowed.checked;
        [startsAt, endsAt].forEach(function (input) { input.disabled = !windowed.checked || rule; input.required = windowed.checked && !rule; });
        startsField.hidden = endsField.hidden = rule;
        ruleBox.hidden = !rule;
      }
      kind.addEventListener("change", syncKind);
      windowed.addEventListener("change", syncKind);
      syncKind();
      rollout.id = "rollout";
      rolloutOut.setAttribute("for", "rollout");
      root.appendChild(h("p", { class: "muted", text: current ? "Now: " + describeRelease(current) : "Not released yet." }));
      root.appendChild(form);

      form.addEventListener("submit", function (event) {
        event.preventDefault();
        clear(status);
        clearFieldErrors(form);
        var theme = kind.value === "theme";
        var recurring = windowed.checked && byRule.checked;
        var plan = {
          version: +version.value, startsAt: startsAt.value.length === 16 ? startsAt.value + ":00" : startsAt.value,
          endsAt: endsAt.value.length === 16 ? endsAt.value + ":00" : endsAt.value, timeZone: timeZone.value.trim(),
          priority: +priority.value, platforms: PLATFORMS.filter(function (p) { return document.getElementById("platform-" + p).checked; }),
          minAppVersion: minVersion.value.trim() || null, maxAppVersion: maxVersion.value.trim() || null, rollout: +rollout.value
        };
        if (theme) {
          plan.kind = "theme";
          if (order.value.trim() !== "") plan.order = +order.value;
          if (!windowed.checked) { delete plan.startsAt; delete plan.endsAt; delete plan.timeZone; }
        }
        if (recurring) {
          delete plan.startsAt; delete plan.endsAt;
          var rule = readRule();
          // An unchanged rule keeps the release's own spelling.
          plan.recurs = current && sameRule(current.recurs, rule) ? current.recurs : compactRule(rule);
          // A rule that stays a rule keeps its overrides; dates replace both.
          if (current && current.recurs && current.occurrences) plan.occurrences = current.occurrences;
        } else if (currentWindow && !current.recurs && plan.startsAt) {
          // The same window written in another zone is no change: keep the release's own spelling.
          var askedStart = instantOf(plan.startsAt, plan.timeZone), askedEnd = instantOf(plan.endsAt, plan.timeZone);
          if (askedStart && askedEnd && askedStart.getTime() === currentWindow.start.getTime() && askedEnd.getTime() === currentWindow.end.getTime()) {
            plan.startsAt = current.startsAt; plan.endsAt = current.endsAt; plan.timeZone = current.timeZone;
          }
        }
        // A new release names its guard only when it is not the standard one.
        plan.guard = readGuard();
        if (!current && sameGuard(plan.guard, STANDARD_GUARD)) delete plan.guard;
        var before = current ? Object.assign({ rollout: 100, priority: 0, platforms: PLATFORMS, minAppVersion: null, maxAppVersion: null }, current) : null;
        if (before) before.guard = fullGuard(current.guard);
        var changed = {};
        // A merge patch: a field the new plan leaves out is removed with null (a theme's window or order, its kind,
        // a rule replaced by dates). A changed rule names every key, null for a default, since a merge patch
        // merges objects key by key.
        RELEASE_FIELDS.concat(["recurs"]).forEach(function (name) {
          var a = before ? before[name] : undefined, b = plan[name];
          var same = name === "recurs" ? sameRule(a, b) : JSON.stringify(a) === JSON.stringify(b);
          if (before && same) return;
          if (name === "recurs" && b && a) {
            changed.recurs = {};
            RULE_KEYS.forEach(function (key) { changed.recurs[key] = b[key] === undefined ? null : b[key]; });
          } else changed[name] = b === undefined ? null : b;
        });
        // Overrides belong to a rule: a release left without one drops them.
        if (before && before.occurrences && !plan.recurs) changed.occurrences = null;
        // The guard is patched whole (each member named), and only when it changed.
        if (before && !sameGuard(before.guard, plan.guard)) changed.guard = plan.guard;
        if (before && !Object.keys(changed).length) { status.appendChild(h("p", { class: "muted", text: "Nothing to change." })); return; }
        var lowering = before && plan.rollout < before.rollout;
        confirmAction(current ? "Change the release of " + (skin.title || skin.id) + "?" : "Release " + (skin.title || skin.id) + "?",
          [changeList(before, plan, RELEASE_FIELDS.concat(["recurs", "occurrences", "guard"])), lowering ? h("p", { class: "warn-text", text: "The rollout goes down: devices above " + plan.rollout + " % lose the skin." }) : null],
          current ? "Apply" : "Release", lowering).then(function (ok) {
          if (!ok) return;
          // A released skin is changed with a merge patch of what changed; a new release is a PUT of the whole plan.
          var request = current ? api("PATCH", "/skins/" + encodeURIComponent(id) + "/release", { json: changed, etag: etag })
            : api("PUT", "/skins/" + encodeURIComponent(id) + "/release", { json: plan, etag: etag });
          request.then(function () {
            showBanner((current ? "Changed the release of " : "Released ") + id + " (rollout " + plan.rollout + " %).");
            location.hash = "#/skins/" + encodeURIComponent(id);
          }, function (error) { writeFailed(error, skin, status); markField(error, controls); });
        });
      });
    }, function (error) { note.remove(); fail(root, error); });
  }

  // Phone preview ------------------------------------------------------------------------------------------
  function renderPhone(id, params) {
    var root = screen("Phone preview", "The config drawn on a generic phone, as an app would show it.");
    var note = loading(root);
    api("GET", "/skins/" + encodeURIComponent(id)).then(function (answer) {
      note.remove();
      var skin = answer.data;
      root.querySelector("h1").textContent = "Phone preview · " + (skin.title || skin.id);
      var number = +(params.version || (skin.release ? skin.release.version : skin.latestVersion));
      var scale = +(params.scale || 3), appearance = params.appearance || "both";
      var stage = h("div", { class: "phones" });
      root.appendChild(h("div", { class: "controls" },
        h("a", { class: "button ghost", href: "#/skins/" + encodeURIComponent(id), text: "← Skin" }),
        field("Version", h("select", { onchange: function (e) { number = +e.target.value; draw(); } }, skin.versions.slice().reverse().map(function (v) { return h("option", { value: v.version, selected: v.version === number, text: "v" + v.version }); }))),
        segmented("Appearance", "phone-appearance", [{ value: "both", label: "Both" }, { value: "light", label: "Light" }, { value: "dark", label: "Dark" }], appearance, function (v) { appearance = v; draw(); }),
        segmented("Scale", "phone-scale", [{ value: 1, label: "@1x" }, { value: 2, label: "@2x" }, { value: 3, label: "@3x" }], scale, function (v) { scale = v; draw(); })));
      root.appendChild(stage);
      function draw() {
        clear(stage);
        loadVersion(id, number).then(function (loaded) {
          (appearance === "both" ? ["light", "dark"] : [appearance]).forEach(function (a) {
            stage.appendChild(phone(skin, number, loaded, a, scale));
          });
        }, function (error) { fail(stage, error); });
      }
      draw();
    }, function (error) { note.remove(); fail(root, error); });
  }

  function findModule(config, pattern, fallback) {
    var names = Object.keys(config);
    return names.filter(function (n) { return pattern.test(n); })[0] || fallback || names[0];
  }

  function phone(skin, number, loaded, appearance, scale) {
    var config = effectiveConfig(loaded.config, appearance);
    var dark = appearance === "dark";
    var navModule = findModule(config, /navi|nav/i);
    var tabModule = findModule(config, /tab/i, navModule);
    var loadModule = findModule(config, /load/i, null);
    function colorOf(module, ids) {
      var value = pick(config, module, "colors", ids);
      var parsed = typeof value === "string" ? window.LiveryColor.parse(value) : null;
      return parsed ? window.LiveryColor.css(parsed) : null;
    }
    function image(module, key, alt, className) {
      var ref = imageReference(config[module] && config[module].images ? config[module].images[key] : undefined);
      if (!ref) return null;
      if (ref.color) { var c = window.LiveryColor.parse(ref.color); return c ? h("span", { class: (className || "") + " solid", role: "img", "aria-label": alt, style: { "background-color": window.LiveryColor.css(c) } }) : null; }
      if (ref.remote) return h("span", { class: (className || "") + " remote", role: "img", "aria-label": alt + " (remote: " + ref.remote + ")", text: "remote image" });
      var path = resolveImage(ref.name, loaded.paths, scale);
      return path ? thumbnail(skin.id, number, path, alt, className) : null;
    }
    function imageKey(module, patterns) {
      var images = (config[module] || {}).images || {};
      var keys = Object.keys(images);
      for (var i = 0; i < patterns.length; i++) { var found = keys.filter(function (k) { return patterns[i].test(k); })[0]; if (found) return found; }
      return null;
    }
    function value(module, ids) { var v = pick(config, module, "values", ids); return typeof v === "string" ? v : null; }

    var navBackground = colorOf(navModule, ["color_background", "color.background.navbar", "color.background"]);
    var titleColor = colorOf(navModule, ["color_title", "color.text.title", "color.title"]);
    var title = value(navModule, ["value_title", "value.title"]) || skin.title || skin.id;
    var logoKey = imageKey(navModule, [/logo/i]);
    var bannerKey = imageKey(navModule, [/banner/i]);
    var navImageKey = navModule !== tabModule ? imageKey(navModule, [/background/i]) : imageKey(navModule, [/background\.navbar|navbar/i]);

    var statusBar = h("div", { class: "status-bar" }, h("span", { text: "9:41" }), h("span", { class: "status-icons", "aria-hidden": "true", text: "●●● ▮" }));
    var navBar = h("div", { class: "nav-bar" },
      logoKey ? image(navModule, logoKey, "logo", "nav-logo") : null,
      h("span", { class: "nav-title", style: titleColor ? { color: titleColor } : {}, text: title }));
    if (navBackground && !titleColor) navBar.classList.add(window.LiveryColor.luminance(window.LiveryColor.parse(pick(config, navModule, "colors", ["color_background", "color.background.navbar", "color.background"]))) < 0.5 ? "on-dark" : "on-light");
    // The bar's background image (or solid colour) lies under the status bar too, as on a phone.
    var top = h("div", { class: "phone-top", style: navBackground ? { "background-color": navBackground } : {} },
      navImageKey ? image(navModule, navImageKey, "navigation bar background", "nav-bg") : null, statusBar, navBar);

    var content = h("div", { class: "phone-content" });
    if (bannerKey) content.appendChild(h("div", { class: "phone-banner" }, image(navModule, bannerKey, "banner", "banner-img")));
    content.appendChild(h("div", { class: "skeleton" }, h("span"), h("span"), h("span", { class: "short" })));
    if (loadModule) {
      var resources = (config[loadModule] || {}).resources || {};
      var animation = null, lottie = [];
      Object.keys(resources).forEach(function (key) {
        var path = resources[key];
        if (typeof path !== "string") return;
        if (/\.(gif|png|webp)$/i.test(path) && loaded.paths.has(path) && !animation) animation = thumbnail(skin.id, number, path, "loading animation " + path, "loading-anim");
        else if (/\.json$/i.test(path)) lottie.push(path);
      });
      content.appendChild(h("div", { class: "loading-card" }, animation,
        h("div", null, h("div", { class: "loading-text", text: value(loadModule, ["value_refresh_text", "value.refresh.text"]) || "Loading…" }),
          lottie.length ? h("div", { class: "muted small", text: "Lottie: " + lottie.join(", ") }) : null)));
    }
    content.appendChild(h("div", { class: "skeleton" }, h("span"), h("span", { class: "short" })));

    // Tab buttons: image_<name>_button_normal / _selected (Ziroom style) or image.tab.<name>[.selected] (dotted).
    var images = (config[tabModule] || {}).images || {};
    var buttons = [];
    Object.keys(images).forEach(function (key) {
      var m = /^image_(.+?)_button_normal$/.exec(key);
      if (m) buttons.push({ normal: key, selected: images["image_" + m[1] + "_button_selected"] !== undefined ? "image_" + m[1] + "_button_selected" : key, title: value(tabModule, ["value_" + m[1] + "_button"]) || m[1] });
      m = /^image\.tab\.([^.]+)$/.exec(key);
      if (m) buttons.push({ normal: key, selected: images[key + ".selected"] !== undefined ? key + ".selected" : key, title: value(tabModule, ["value.tab." + m[1]]) || m[1].charAt(0).toUpperCase() + m[1].slice(1) });
    });
    var tabBackground = colorOf(tabModule, tabModule === navModule ? ["color.background.tabbar", "color.background.tableview", "color_background"] : ["color_background", "color.background"]);
    var normalColor = colorOf(tabModule, ["color_button_normal", "color.tab.normal", "color.text.subtitle", "color.text"]);
    var selectedColor = colorOf(tabModule, ["color_button_selected", "color.tab.selected", "color.text.highlighted"]);
    var tabBar = h("div", { class: "tab-bar", style: tabBackground ? { "background-color": tabBackground } : {} },
      tabModule !== navModule && images.image_background ? image(tabModule, "image_background", "tab bar background", "tab-bg") : null,
      buttons.map(function (button, index) {
        var isSelected = index === 0;
        var color = isSelected ? selectedColor : normalColor;
        return h("div", { class: "tab" + (isSelected ? " selected" : "") },
          image(tabModule, isSelected ? button.selected : button.normal, button.title + (isSelected ? " (selected)" : ""), "tab-icon"),
          h("span", { class: "tab-title", style: color ? { color: color } : {}, text: button.title }));
      }));
    return h("figure", { class: "phone-figure" },
      h("div", { class: "phone" + (dark ? " dark" : ""), role: "img", "aria-label": "phone preview, " + appearance + ", @" + scale + "x" },
        h("div", { class: "phone-screen" }, top, content, tabBar, h("div", { class: "home-indicator" }))),
      h("figcaption", { text: (dark ? "Dark" : "Light") + " · @" + scale + "x · v" + number }));
  }

  // Timeline -----------------------------------------------------------------------------------------------
  function renderTimeline() {
    var root = screen("Timeline", "Every released skin's window per app. The red line is now; higher priority wins overlaps.");
    var note = loading(root);
    api("GET", "/skins").then(function (answer) {
      note.remove();
      var now = new Date();
      var released = answer.data.skins.filter(function (s) { return s.release && windowOf(s.release); });
      if (!released.length) { root.appendChild(h("p", { class: "empty", text: "No released skins." })); return; }
      var from = Math.min.apply(null, released.map(function (s) { return windowOf(s.release).start.getTime(); }).concat([now.getTime()]));
      var to = Math.max.apply(null, released.map(function (s) { return windowOf(s.release).end.getTime(); }).concat([now.getTime()]));
      var day = 86400e3;
      from = Math.floor((from - 3 * day) / day) * day; to = Math.ceil((to + 3 * day) / day) * day;
      if (to - from > 500 * day) { from = now.getTime() - 60 * day; to = now.getTime() + 400 * day; }
      function pct(t) { return Math.max(0, Math.min(100, (t - from) / (to - from) * 100)); }
      var apps = {};
      released.forEach(function (s) { (apps[s.app || "?"] = apps[s.app || "?"] || []).push(s); });
      Object.keys(apps).sort().forEach(function (app) {
        var skins = apps[app].sort(function (a, b) { return windowOf(a.release).start - windowOf(b.release).start; });
        var axis = h("div", { class: "axis", "aria-hidden": "true" });
        var d = new Date(from);
        d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
        var step = (to - from) > 200 * day ? 2 : 1;
        while (d.getTime() < to) {
          axis.appendChild(h("span", { class: "tick", style: { left: pct(d.getTime()) + "%" }, text: d.toLocaleDateString("en-GB", { month: "short", year: "numeric", timeZone: "UTC" }) }));
          d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + step, 1));
        }
        var overlaps = [];
        skins.forEach(function (a, i) {
          skins.slice(i + 1).forEach(function (b) {
            var wa = windowOf(a.release), wb = windowOf(b.release);
            if (wa.start < wb.end && wb.start < wa.end) overlaps.push([a, b]);
          });
        });
        var overlapping = new Set();
        overlaps.forEach(function (pair) { overlapping.add(pair[0].id); overlapping.add(pair[1].id); });
        // The lanes hold a 200 px name column, then the track: the now-line sits in the track's coordinates.
        var rows = h("div", { class: "lanes" }, h("div", { class: "now-line", style: { left: "calc(200px + (100% - 200px) * " + (pct(now.getTime()) / 100) + ")" }, title: "now " + formatIn(now, viewerZone) }, h("span", { text: "now" })));
        skins.forEach(function (s) {
          var w = windowOf(s.release);
          var bar = h("a", { class: "bar-item" + (overlapping.has(s.id) ? " overlap" : "") + " status-" + statusOf(s, { apps: {} }, now), href: "#/skins/" + encodeURIComponent(s.id),
            style: { left: pct(w.start.getTime()) + "%", width: Math.max(0.8, pct(w.end.getTime()) - pct(w.start.getTime())) + "%" },
            "aria-label": (s.title || s.id) + (w.year ? ", every year, the " + w.year + " occurrence" : "") + ", " + formatZoned(w.start, w.zone) + " to " + formatZoned(w.end, w.zone) + ", priority " + (s.release.priority || 0) + ", rollout " + (s.release.rollout === undefined ? 100 : s.release.rollout) + " %" },
            h("span", { class: "bar-label", text: (s.title || s.id) }), h("span", { class: "bar-prio", text: "P" + (s.release.priority || 0) }));
          rows.appendChild(h("div", { class: "lane" }, h("div", { class: "lane-name", text: s.title || s.id }), h("div", { class: "lane-track" }, bar)));
        });
        var section = h("section", { class: "card timeline", "aria-labelledby": "app-" + app }, h("h2", { id: "app-" + app, text: "App " + app }),
          h("div", { class: "timeline-grid" }, h("div", { class: "lane-name" }), axis), rows);
        if (overlaps.length) {
          section.appendChild(h("ul", { class: "overlaps" }, overlaps.map(function (pair) {
            var a = pair[0], b = pair[1], pa = a.release.priority || 0, pb = b.release.priority || 0;
            var winner = pa !== pb ? (pa > pb ? a : b) : (windowOf(a.release).start > windowOf(b.release).start ? a : b);
            return h("li", null, h("strong", { text: "Overlap: " }), (a.title || a.id) + " (P" + pa + ") and " + (b.title || b.id) + " (P" + pb + ") — " + (winner.title || winner.id) + " wins" + (pa === pb ? " (later start)" : ""));
          })));
        }
        root.appendChild(section);
      });
    }, function (error) { note.remove(); fail(root, error); });
  }

  // Kill switch --------------------------------------------------------------------------------------------
  function renderKillSwitch() {
    var root = screen("Kill switch", "Turns every poll answer into “no skin” at once: for every app, or for one.");
    var note = loading(root);
    Promise.all([api("GET", "/killswitch"), api("GET", "/skins")]).then(function (answers) {
      note.remove();
      var switches = answers[0].data, etag = answers[0].etag;
      var apps = new Set(Object.keys(switches.apps));
      answers[1].data.skins.forEach(function (s) { if (s.app) apps.add(s.app); });
      root.appendChild(switchCard(null, switches.global, etag, switches));
      Array.from(apps).sort().forEach(function (app) { root.appendChild(switchCard(app, switches.apps[app], etag, switches)); });
    }, function (error) { note.remove(); fail(root, error); });
  }

  function switchCard(app, setting, etag, all) {
    var on = !!(setting && setting.enabled);
    var name = app ? "App " + app : "Global (every app)";
    var slug = app ? "app-" + app : "global";
    var card = h("section", { class: "card switch" + (on ? " on" : ""), "aria-labelledby": "ks-" + slug, "data-switch": app || "*" },
      h("div", { class: "switch-head" }, h("h2", { id: "ks-" + slug, text: name }), h("span", { class: "status plain " + (on ? "status-killed" : "status-live"), text: on ? "On: no skins served" : "Off" })),
      setting ? h("p", { class: "muted small", text: (on ? "Turned on" : "Turned off") + " by " + setting.changedBy + ", " + formatIn(new Date(setting.changedAt), viewerZone) + (setting.reason ? " — “" + setting.reason + "”" : "") }) : h("p", { class: "muted small", text: "Never switched." }));
    if (canWrite()) {
      var reason = h("input", { type: "text", required: true, autocomplete: "off", placeholder: on ? "why it is safe again" : "what is wrong" });
      var status = h("div", { "aria-live": "polite" });
      var form = h("form", { class: "inline-form", novalidate: true, "aria-label": (on ? "Turn off " : "Turn on ") + name },
        field("Reason", reason), h("button", { type: "submit", class: on ? "" : "danger", text: on ? "Turn off" : "Turn on" }));
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        clear(status);
        if (!reason.value.trim()) { status.appendChild(errorBox(new ApiError(400, { error: { message: "Give a reason.", details: { field: "reason", reason: "required, so the audit log says why" } } }))); reason.focus(); return; }
        confirmAction((on ? "Turn off" : "Turn on") + " the kill switch for " + (app ? "app " + app : "every app") + "?",
          [h("p", { text: on ? "Phones get skins again by the rules." : "Every poll " + (app ? "of " + app + " " : "") + "answers “no skin” before this returns; CDN copies expire within their max-age." }),
            h("p", null, "Reason: ", h("q", { text: reason.value.trim() }))], on ? "Turn off" : "Turn on", !on).then(function (ok) {
          if (!ok) return;
          var body = { enabled: !on, reason: reason.value.trim() };
          if (app) body.app = app;
          api("PUT", "/killswitch", { json: body, etag: etag }).then(function () {
            showBanner("Kill switch " + (app ? "for " + app + " " : "") + (on ? "off" : "on") + ".");
            route();
          }, function (error) {
            if (error.status === 412) {
              api("GET", "/killswitch").then(function (now) {
                var before = {}, after = {};
                before.global = all.global ? all.global.enabled : false; after.global = now.data.global ? now.data.global.enabled : false;
                Object.keys(Object.assign({}, all.apps, now.data.apps)).forEach(function (a) { before[a] = all.apps[a] ? all.apps[a].enabled : false; after[a] = now.data.apps[a] ? now.data.apps[a].enabled : false; });
                status.appendChild(h("div", { class: "conflict", role: "alert" }, h("strong", { text: "Someone changed the kill switches since you opened this screen (412). Nothing was written." }),
                  changeList(before, after, Object.keys(after)), h("button", { type: "button", text: "Reload", onclick: function () { route(); } })));
              });
            } else status.appendChild(errorBox(error));
          });
        });
      });
      card.appendChild(form);
      card.appendChild(status);
    }
    return card;
  }

  // Preview as a device ------------------------------------------------------------------------------------
  function renderDevice(params) {
    var root = screen("Preview as a device", "Exactly what the poll answers for this device at this time, and why.");
    api("GET", "/skins").then(function (answer) {
      var apps = Array.from(new Set(answer.data.skins.map(function (s) { return s.app; }).filter(Boolean))).sort();
      var app = h("input", { type: "text", required: true, value: params.app || apps[0] || "", list: "apps", autocomplete: "off" });
      var platform = h("select", null, PLATFORMS.map(function (p) { return h("option", { value: p, text: p, selected: p === (params.platform || "ios") }); }));
      var appVersion = h("input", { type: "text", required: true, value: params.appVersion || "7.2.0", autocomplete: "off" });
      var deviceId = h("input", { type: "text", value: params.deviceId || "", placeholder: "optional: without it only 100 % rollouts apply", autocomplete: "off" });
      var scale = h("select", null, [1, 2, 3].map(function (s) { return h("option", { value: s, text: "@" + s + "x", selected: s === 3 }); }));
      var appearance = h("select", null, ["light", "dark", "any"].map(function (a) { return h("option", { value: a, text: a === "any" ? "any (both in one package)" : a }); }));
      var at = h("input", { type: "datetime-local", step: "1", value: params.at || "" });
      var result = h("div", { "aria-live": "polite" });
      var form = h("form", { class: "card form", "aria-label": "Device", novalidate: true },
        h("div", { class: "form-grid" }, field("App", app), field("Platform", platform), field("App version", appVersion), field("Device id", deviceId),
          field("Scale", scale), field("Appearance", appearance), field("At", at, "in your time zone (" + viewerZone + "); empty for now")),
        h("datalist", { id: "apps" }, apps.map(function (a) { return h("option", { value: a }); })),
        h("div", { class: "actions" }, h("button", { type: "submit", text: "Show the answer" })));
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        clear(result);
        var query = new URLSearchParams({ app: app.value.trim(), platform: platform.value, appVersion: appVersion.value.trim(), scale: scale.value, appearance: appearance.value });
        if (deviceId.value.trim()) query.set("deviceId", deviceId.value.trim());
        if (at.value) query.set("at", new Date(at.value).toISOString());
        api("GET", "/preview?" + query.toString()).then(function (preview) {
          var data = preview.data, answerBody = data.answer || {};
          var chosen = answerBody.skinSign ? answerBody.skinId : null;
          result.appendChild(h("section", { class: "card answer", "aria-labelledby": "answer-title" },
            h("h2", { id: "answer-title", text: chosen ? "Gets " + chosen : "Gets no skin (default look)" }),
            data.killSwitch ? h("p", { class: "notice danger", text: "A kill switch is on for this app." }) : null,
            h("p", { class: "muted small", text: "At " + formatIn(new Date(data.at), viewerZone) + " · ETag " + data.etag }),
            h("pre", { class: "json", text: JSON.stringify(answerBody, null, 2) })));
          result.appendChild(h("div", { class: "card table-card" }, h("table", { class: "table", "aria-label": "Skins considered" },
            h("thead", null, h("tr", null, ["Skin", "Version", "Outcome", "Reason", "Next", "Window"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
            h("tbody", null, data.considered.length ? data.considered.map(function (c) {
              return h("tr", null, h("td", null, h("a", { href: "#/skins/" + encodeURIComponent(c.skinId), text: c.skinId })), h("td", { class: "num", text: c.version ? "v" + c.version : "—" }),
                h("td", null, h("span", { class: "status outcome-" + c.outcome, text: c.outcome })), h("td", { text: c.reason || (c.outcome === "selected" ? "matches every rule and ranks first" : "—") }),
                h("td", { text: c.next ? "yes" : "" }), h("td", null, windowCell(c.release)));
            }) : h("tr", null, h("td", { colspan: "6", class: "muted", text: "No released skin for this app." }))))));
          var themes = data.themes || [];
          if (themes.length) {
            var listed = ((data.themeList || {}).themes || []).length;
            result.appendChild(h("div", { class: "card table-card" },
              h("p", { class: "muted small", text: "Themes the user may pick: " + listed + " listed by /api/v1/themes, in this order." }),
              h("table", { class: "table", "aria-label": "Themes considered" },
                h("thead", null, h("tr", null, ["Theme", "Version", "Order", "Outcome", "Reason"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
                h("tbody", null, themes.map(function (t) {
                  return h("tr", null, h("td", null, h("a", { href: "#/skins/" + encodeURIComponent(t.themeId), text: t.themeId })), h("td", { class: "num", text: t.version ? "v" + t.version : "—" }),
                    h("td", { class: "num", text: t.order === null || t.order === undefined ? "—" : String(t.order) }),
                    h("td", null, h("span", { class: "status outcome-" + (t.outcome === "listed" ? "selected" : t.outcome), text: t.outcome })),
                    h("td", { text: t.reason || "matches every rule" }));
                })))));
          }
        }, function (error) { result.appendChild(errorBox(error)); });
      });
      root.appendChild(form);
      root.appendChild(result);
    }, function (error) { fail(root, error); });
  }

  // Audit --------------------------------------------------------------------------------------------------
  function renderAudit(params) {
    var root = screen("Audit", "Who changed what, oldest first, with before and after.");
    var since = h("input", { type: "text", value: params.since || "", placeholder: "sequence number or 2027-02-05T00:00:00Z", autocomplete: "off" });
    var limit = h("select", null, [25, 50, 100, 500].map(function (n) { return h("option", { value: n, text: n, selected: n === +(params.limit || 100) }); }));
    var actor = h("input", { type: "text", value: params.actor || "", autocomplete: "off" });
    var action = h("input", { type: "text", value: params.action || "", autocomplete: "off", placeholder: "e.g. release" });
    var skin = h("input", { type: "text", value: params.skin || "", autocomplete: "off" });
    var results = h("div");
    var form = h("form", { class: "card form", "aria-label": "Audit filters", novalidate: true },
      h("div", { class: "form-grid" }, field("Since", since), field("Page size", limit), field("Actor", actor), field("Action", action), field("Skin", skin)),
      h("div", { class: "actions" }, h("button", { type: "submit", text: "Apply filters" })));
    root.appendChild(form);
    root.appendChild(results);
    var cursors = [];
    function load(cursor) {
      clear(results);
      var query = new URLSearchParams({ limit: limit.value });
      if (cursor !== null && cursor !== undefined && cursor !== "") query.set("since", cursor);
      var note = loading(results);
      api("GET", "/audit?" + query.toString()).then(function (answer) {
        note.remove();
        var entries = answer.data.entries.filter(function (e) {
          return (!actor.value.trim() || e.actor.indexOf(actor.value.trim()) >= 0) && (!action.value.trim() || e.action.indexOf(action.value.trim()) >= 0) &&
            (!skin.value.trim() || (e.skinId || "").indexOf(skin.value.trim()) >= 0);
        });
        results.appendChild(h("div", { class: "card table-card" }, h("table", { class: "table audit", "aria-label": "Audit entries" },
          h("thead", null, h("tr", null, ["#", "Time", "Actor", "Action", "Skin", "Before", "After"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
          h("tbody", null, entries.length ? entries.map(function (e) {
            return h("tr", { "data-action": e.action }, h("td", { class: "num", text: e.sequence }), h("td", { text: formatIn(new Date(e.time), viewerZone) }), h("td", { text: e.actor }),
              h("td", null, h("span", { class: "tag", text: e.action })), h("td", { class: "mono", text: e.skinId || "—" }),
              h("td", null, h("code", { class: "audit-json", title: full(e.before), text: compact(e.before) })), h("td", null, h("code", { class: "audit-json", title: full(e.after), text: compact(e.after) })));
          }) : h("tr", null, h("td", { colspan: "7", class: "muted", text: "No entries on this page match." }))))));
        var next = answer.data.nextSince;
        results.appendChild(h("div", { class: "pager" },
          h("button", { type: "button", class: "ghost", text: "← Previous page", disabled: !cursors.length, onclick: function () { load(cursors.pop()); } }),
          h("span", { class: "muted small", text: answer.data.entries.length + " entries on this page" + (entries.length !== answer.data.entries.length ? ", " + entries.length + " shown" : "") }),
          h("button", { type: "button", class: "ghost", text: "Next page →", disabled: next === null || answer.data.entries.length < +limit.value, onclick: function () { cursors.push(cursor); load(String(next)); } })));
      }, function (error) { note.remove(); fail(results, error); });
    }
    form.addEventListener("submit", function (event) { event.preventDefault(); cursors = []; load(since.value.trim()); });
    load(since.value.trim());
  }

  function full(value) { return value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value); }

  // One line for an audit side: the release's version, rollout and priority, or a kill switch's state, else JSON.
  function compact(value) {
    if (value === null || value === undefined) return "—";
    if (typeof value === "object") {
      var release = value.release && value.release.document ? value.release.document : value.document || (value.startsAt ? value : null);
      var parts = [];
      if (value.version !== undefined) parts.push("v" + value.version);
      if (release && typeof release === "object") {
        if (release.rollout !== undefined) parts.push("rollout " + release.rollout + " %");
        if (release.priority !== undefined) parts.push("priority " + release.priority);
        if (release.startsAt) parts.push(release.startsAt + " → " + release.endsAt);
        if (release.paused && typeof release.paused === "object") {
          var figures = release.paused.figures || {};
          parts.push("paused by its guard" + (figures.failedDevices !== undefined ? ": " + figures.failedDevices + " of " + figures.reportingDevices + " devices failed" : ""));
        }
      }
      if (value.enabled !== undefined) parts.push((value.enabled ? "on" : "off") + (value.app ? " for " + value.app : " (global)") + (value.reason ? ": " + value.reason : ""));
      if (parts.length) return parts.join(", ");
    }
    var text = full(value);
    return text.length > 90 ? text.slice(0, 87) + "…" : text;
  }

  // Upload -------------------------------------------------------------------------------------------------
  function renderUpload() {
    var root = screen("Upload", "A skin folder zipped (what “compress folder” makes). It is validated, stored as a new version, and not released.");
    if (!canWrite()) { root.appendChild(h("p", { class: "muted", text: "Your token is read-only: viewers cannot upload." })); return; }
    var input = h("input", { type: "file", id: "upload-file", accept: ".zip,application/zip", class: "visually-hidden" });
    var zone = h("label", { for: "upload-file", class: "dropzone", tabindex: "0" },
      h("span", { class: "drop-title", text: "Drop a .zip here" }), h("span", { class: "muted", text: "or press Enter to choose a file" }));
    var result = h("div", { "aria-live": "polite" });
    zone.addEventListener("keydown", function (event) { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); input.click(); } });
    ["dragenter", "dragover"].forEach(function (type) { zone.addEventListener(type, function (event) { event.preventDefault(); zone.classList.add("over"); }); });
    ["dragleave", "drop"].forEach(function (type) { zone.addEventListener(type, function () { zone.classList.remove("over"); }); });
    zone.addEventListener("drop", function (event) { event.preventDefault(); if (event.dataTransfer.files[0]) send(event.dataTransfer.files[0]); });
    input.addEventListener("change", function () { if (input.files[0]) send(input.files[0]); });
    function send(file) {
      clear(result);
      var note = loading(result);
      note.textContent = "Uploading " + file.name + " (" + bytes(file.size) + ")…";
      api("POST", "/skins", { file: file }).then(function (answer) {
        note.remove();
        var data = answer.data;
        versionCache.clear();
        result.appendChild(h("section", { class: "card ok-card", "aria-labelledby": "upload-title" },
          h("h2", { id: "upload-title", text: "Stored " + data.skinId + " v" + data.version }),
          h("p", null, "Not served yet. ", h("a", { href: "#/skins/" + encodeURIComponent(data.skinId), text: "Open the skin" }), " · ", h("a", { href: "#/skins/" + encodeURIComponent(data.skinId) + "/release", text: "Release it" })),
          reportTable(data.report)));
        input.value = "";
      }, function (error) {
        note.remove();
        input.value = "";
        if (error.status === 422 && error.details.report) {
          result.appendChild(h("section", { class: "card bad-card", "aria-labelledby": "upload-title" },
            h("h2", { id: "upload-title", text: "Refused: the skin is not valid (nothing was stored)" }), reportTable(error.details.report)));
        } else result.appendChild(errorBox(error));
      });
    }
    root.appendChild(zone);
    root.appendChild(input);
    root.appendChild(result);
  }

  function reportTable(report) {
    var issues = (report && report.issues) || [];
    if (!issues.length) return h("p", { class: "ok-text", text: "No warnings." });
    return h("table", { class: "table report", "aria-label": "Validation report" },
      h("thead", null, h("tr", null, ["Severity", "Code", "File", "JSON pointer", "Value", "Message", "Fix"].map(function (t) { return h("th", { scope: "col", text: t }); }))),
      h("tbody", null, issues.map(function (issue) {
        return h("tr", { class: "sev-" + issue.severity }, h("td", null, h("span", { class: "tag " + (issue.severity === "error" ? "bad" : "warn"), text: issue.severity })),
          h("td", { class: "mono", text: issue.code }), h("td", { class: "mono", text: issue.file || "—" }), h("td", { class: "mono", text: issue.pointer || "—" }),
          h("td", { class: "mono", text: issue.value === undefined || issue.value === null ? "—" : (typeof issue.value === "string" ? issue.value : JSON.stringify(issue.value)) }),
          h("td", { text: issue.message || "" }), h("td", { text: issue.fix || "" }));
      })));
  }

  // ---------------------------------------------------------------------------------------------------------
  // Routing: #/skins, #/skins/<id>[/phone|/release], #/timeline, #/killswitch, #/device, #/audit, #/upload.

  function route() {
    if (!sessionStorage.getItem(TOKEN_KEY) || !me) { renderSignIn(); return; }
    var hash = location.hash.replace(/^#/, "") || "/skins";
    var query = {};
    var q = hash.indexOf("?");
    if (q >= 0) { new URLSearchParams(hash.slice(q + 1)).forEach(function (v, k) { query[k] = v; }); hash = hash.slice(0, q); }
    var parts = hash.split("/").filter(Boolean).map(decodeURIComponent);
    var screenName = parts[0] || "skins";
    Array.prototype.forEach.call(document.querySelectorAll("#nav a"), function (a) {
      if (a.getAttribute("data-screen") === screenName) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
    if (screenName === "skins" && parts[1] && parts[2] === "phone") renderPhone(parts[1], query);
    else if (screenName === "skins" && parts[1] && parts[2] === "release") renderRelease(parts[1]);
    else if (screenName === "skins" && parts[1]) renderSkin(parts[1], query);
    else if (screenName === "timeline") renderTimeline();
    else if (screenName === "killswitch") renderKillSwitch();
    else if (screenName === "device") renderDevice(query);
    else if (screenName === "audit") renderAudit(query);
    else if (screenName === "upload") renderUpload();
    else renderSkins();
  }

  document.getElementById("signout").addEventListener("click", function () { signOut("Signed out."); });
  window.addEventListener("hashchange", route);

  // Start: with a token kept in this tab, ask who it belongs to; otherwise sign in.
  var kept = sessionStorage.getItem(TOKEN_KEY);
  if (kept) {
    api("GET", "/whoami").then(function (answer) { me = answer.data; signedIn(); route(); }, function () { signOut(); });
  } else renderSignIn();
})();
