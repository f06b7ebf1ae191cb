import CKeyboard
import KeyboardEngine

extension Layout {
  /// Compiles the keymap for `names` from the system's XKB files
  /// (`xkb_keymap_new_from_names`), with the compose table of its locale
  /// when a keysym of it starts a sequence or is one, and builds the
  /// layout's character table.
  public convenience init(names: LayoutNames) throws(LayoutError) {
    guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else {
      throw LayoutError(names: names)
    }
    xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
    let made = names.rules.withCString { rules in
      names.model.withCString { model in
        names.layout.withCString { layout in
          names.variant.withCString { variant in
            names.options.withCString { options in
              var rmlvo = xkb_rule_names(
                rules: rules, model: model, layout: layout, variant: variant, options: options)
              return xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
            }
          }
        }
      }
    }
    guard let keymap = made else {
      xkb_context_unref(context)
      throw LayoutError(names: names)
    }
    let table = ComposeTables.table(locale: names.locale)
    self.init(names: names, keymap: XKBKeymap(context: context, keymap: keymap, composeTable: table))
  }
}

/// The compose tables read so far, by locale: each is read once for every
/// keymap (its parsing costs as much as compiling a keymap), and kept.
private enum ComposeTables {
  nonisolated(unsafe) static var tables: [String: OpaquePointer?] = [:]

  /// The compose table of `locale` (`xkb_compose_table_new_from_locale`),
  /// or of en_US.UTF-8 when it is empty or has none; nil when the system
  /// has neither.
  static func table(locale: String) -> OpaquePointer? {
    XKBReferences.withLock {
      if let table = tables[locale] { return table }
      let table: OpaquePointer? = {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES) else { return nil }
        defer { xkb_context_unref(context) }
        xkb_context_set_log_level(context, XKB_LOG_LEVEL_CRITICAL)
        for name in [locale, "en_US.UTF-8", "C"] where !name.isEmpty {
          if let table = xkb_compose_table_new_from_locale(context, name, XKB_COMPOSE_COMPILE_NO_FLAGS) {
            return table
          }
        }
        return nil
      }()
      tables[locale] = table
      return table
    }
  }
}
