import Glibc
import KeyboardEngine
import LinuxSystem

/// The checks of `vkbd doctor` that read files as the daemon would: the
/// config and its match files, the user's own espanso files, espanso
/// running beside vkbd, and autocorrect's dictionaries.
extension Diagnosis {
  func configCheck() -> DoctorCheck {
    let path = configPath ?? ConfigLoader.defaultPath
    guard configPath != nil || access(path, F_OK) == 0 else {
      return .ok("config", "none at \(path): the embedded default runs")
    }
    do {
      let configuration = try ConfigLoader.load(path: path)
      let refused = configuration.filesOthersCouldEdit()
      if let first = refused.first {
        return .fail(
          "config", "\(plural(refused.count, "file")) the daemon refuses, first \(first)",
          fix: Configuration.othersCouldEditFix)
      }
      return matchFilesCheck(
        "config", configuration.snippets, errors: configuration.snippetProblems, in: "match files",
        found: "\(path): \(plural(configuration.snippets.count, "snippet")), "
          + plural(configuration.snippetFiles.count, "match file"))
    } catch {
      return .fail(
        "config", "\(plural(error.problems.count, "problem")), first \(error.problems[0])",
        fix: "vkbd check lists them all; the daemon keeps the config it has until the file is fixed")
    }
  }

  /// The user's own espanso files, read and parsed as their session agent
  /// and the daemon do.
  func userSnippetsCheck() -> DoctorCheck {
    guard let directory = userDirectory else { return .skip("snippets", "your espanso files are left out") }
    guard Files.kind(of: directory) == .directory else {
      return .ok("snippets", "none of yours: your own snippets go in \(directory)/match (the session agent loads them)")
    }
    let (user, errors, _) = UserSnippets.read(directory: directory)
    return matchFilesCheck(
      "snippets", user.snippets, errors: errors, in: "your match files",
      found: "\(directory): \(plural(user.snippets.count, "snippet")), \(plural(user.files.count, "match file"))"
        + (user.rules.isEmpty ? "" : ", \(plural(user.rules.count, "app config"))"))
  }

  /// espanso itself, running beside vkbd: both would expand each trigger.
  func espansoCheck() -> DoctorCheck {
    let running = (Files.names(in: processes) ?? []).filter { name in
      name.allSatisfy(\.isNumber)
        && (try? Files.readText(processes + "/" + name + "/comm", limit: 64)) == "espanso\n"
    }
    guard let first = running.first else { return .ok("espanso", "not running (vkbd reads its files as they are)") }
    return .fail(
      "espanso", "espanso is running (pid \(first)): it and vkbd would both expand each trigger",
      fix: "as its user: espanso service unregister && espanso stop")
  }

  /// What match files give: a failure at the first error in them (`files`
  /// says whose), or where snippets have a form or a choice and no dialog
  /// program can show them; else `found`.
  func matchFilesCheck(
    _ check: String, _ snippets: SnippetTable, errors: [ConfigProblem], in files: String, found: String
  ) -> DoctorCheck {
    if let first = errors.first {
      return .fail(
        check, "\(plural(errors.count, "error")) in \(files), first \(first)",
        fix: "vkbd check lists them all; the rest of the snippets load")
    }
    return dialogCheck(check, snippets) ?? .ok(check, found)
  }

  /// A failure when `snippets` have a form or a choice and no dialog
  /// program can show them.
  func dialogCheck(_ check: String, _ snippets: SnippetTable) -> DoctorCheck? {
    let dialogs = snippets.indices.count { index in
      snippets.flags(at: index).contains(.whole)
        && snippets[index].variables.contains {
          switch $0.kind {
          case .session(.form), .session(.choice): true
          default: false
          }
        }
    }
    guard dialogs > 0 && dialogProgram == nil else { return nil }
    return .fail(
      check, "\(plural(dialogs, "snippet")) with a form or a choice, and no dialog program (zenity) on PATH",
      fix: "apt install zenity: the session agent shows those dialogs with it, and without it they leave"
        + " their trigger as typed")
  }

  /// The dictionaries autocorrect would use, installed or not.
  func spellingCheck() -> DoctorCheck {
    let path = configPath ?? ConfigLoader.defaultPath
    guard
      let configuration = configPath != nil || access(path, F_OK) == 0
        ? try? ConfigLoader.load(path: path) : ConfigLoader.embeddedDefault()
    else { return .skip("spelling", "the config does not load") }
    guard
      configuration.engine.autocorrect || configuration.apps.rules.contains(where: { $0.settings.autocorrect == true })
    else { return .ok("spelling", "autocorrect is off") }
    let names = configuration.dictionaryNames
    let missing = names.filter { !Dictionaries.isInstalled($0, in: dictionaryDirectory) }
    guard !names.isEmpty, missing.isEmpty else {
      return .fail(
        "spelling",
        names.isEmpty
          ? "no hunspell dictionary for the locale or the layout is installed: autocorrect corrects nothing"
          : "no dictionary \(missing.joined(separator: ", ")) in \(dictionaryDirectory)",
        fix: "install one (apt install hunspell-en-us, hunspell-de-de, …) or name one in autocorrect_languages")
    }
    return .ok("spelling", "autocorrect with \(names.joined(separator: ", ")) (\(dictionaryDirectory))")
  }
}
