// GNOME Shell 45 and later: the extension as an ECMAScript module.
import Clutter from 'gi://Clutter';
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Pango from 'gi://Pango';
import St from 'gi://St';
import * as Main from 'resource:///org/gnome/shell/ui/main.js';
import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';
import * as Keyboard from 'resource:///org/gnome/shell/ui/status/keyboard.js';
import * as IBusManager from 'resource:///org/gnome/shell/misc/ibusManager.js';

//@reporter@

export default class VkbdFocusExtension extends Extension {
  enable() {
    this._reporter = new FocusReporter();
    this._reporter.enable();
  }

  disable() {
    this._reporter.disable();
    this._reporter = null;
  }
}
