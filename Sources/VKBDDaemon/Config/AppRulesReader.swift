import AgentProtocol
import Glibc
import KeyboardEngine

/// Reads `apps:` and `session_users:` (DESIGN 7).
extension ConfigLoader {
  static let appRuleKeys = [
    "app", "title", "role", "enabled", "autocapitalize", "double_space_period", "snippets", "backspace",
    "paste_shortcut", "autocorrect", "smart_punctuation",
  ]
  static let appRuleBackspaceKeys = ["accelerate"]

  /// The `apps:` list; a rule with a problem is reported and left out.
  static func readApps(_ node: YAMLNode, reader: inout YAMLReader) -> [AppRule] {
    var rules: [AppRule] = []
    for item in reader.list(node, key: "apps") ?? [] {
      guard let entries = reader.entries(of: item, named: "apps entry", allowed: appRuleKeys) else { continue }
      var rule = AppRule(settings: AppSettings(), origin: "\(reader.file):\(item.line)")
      var valid = true
      for (key, value) in entries {
        let name = "apps.\(key)"
        switch key {
        case "app", "title":
          guard let text = reader.string(value, key: name) else {
            valid = false
            continue
          }
          do {
            let pattern = try FilterRegex(text)
            if key == "app" { rule.app = .pattern(pattern) } else { rule.title = pattern }
          } catch {
            reader.report("\(name): not a regular expression: \(error)", at: value)
            valid = false
          }
        case "role":
          var roles: [FieldRole] = []
          for roleNode in reader.list(value, key: name) ?? [] {
            guard let text = reader.string(roleNode, key: name) else { continue }
            guard let role = FieldRole(rawValue: text) else {
              let known = FieldRole.allCases.map(\.rawValue).joined(separator: ", ")
              reader.report("\(name) must be one of \(known), not '\(text)'", at: roleNode)
              valid = false
              continue
            }
            roles.append(role)
          }
          rule.roles = roles
        case "enabled": rule.settings.enabled = reader.bool(value, key: name)
        case "autocapitalize": rule.settings.autocapitalize = reader.bool(value, key: name)
        case "double_space_period": rule.settings.doubleSpacePeriod = reader.bool(value, key: name)
        case "snippets": rule.settings.snippets = reader.bool(value, key: name)
        case "autocorrect": rule.settings.autocorrect = reader.bool(value, key: name)
        case "smart_punctuation": rule.settings.smartPunctuation = reader.bool(value, key: name)
        case "paste_shortcut": rule.settings.pasteShortcut = reader.choice(value, key: name)
        case "backspace":
          guard
            let backspace = reader.entries(of: value, named: "apps.backspace", allowed: appRuleBackspaceKeys)
          else { continue }
          for (_, flag) in backspace {
            rule.settings.backspaceAccelerates = reader.bool(flag, key: "apps.backspace.accelerate")
          }
        default:
          preconditionFailure("key \(key) is allowed but not read")
        }
      }
      if rule.app == nil && rule.title == nil && rule.roles == nil && valid {
        reader.report("an apps entry needs at least one of app, title and role", at: item)
        valid = false
      }
      if valid { rules.append(rule) }
    }
    return rules
  }

  /// `session_users:`, user names or numeric ids, resolved now.
  static func readSessionUsers(_ node: YAMLNode, reader: inout YAMLReader) -> [SessionUser] {
    var users: [SessionUser] = []
    for item in reader.list(node, key: "session_users") ?? [] {
      guard let name = reader.string(item, key: "session_users") else { continue }
      if let entry = getpwnam(name) {
        users.append(SessionUser(name: name, uid: entry.pointee.pw_uid))
      } else if let uid = uid_t(name) {
        users.append(SessionUser(name: name, uid: uid))
      } else {
        reader.report("session_users: no user named '\(name)'", at: item)
      }
    }
    return users
  }
}

/// A user whose agent's reports count where logind does not run.
struct SessionUser: Equatable {
  /// As the config names it.
  var name: String
  var uid: uid_t
}
