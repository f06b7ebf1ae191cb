import Glibc
import HunspellFiles
import KeyboardEngine
import LinuxSystem
import SessionWork

/// The spelling dictionaries autocorrect uses (DESIGN 9): Debian's
/// hunspell dictionaries, named by `autocorrect_languages`, else chosen
/// from the system's locale and the layout's groups.
enum Dictionaries {
  static let directory = "/usr/share/hunspell"

  /// The dictionary of each layout whose language differs from its code
  /// (`us` is English); others are tried as `xx_XX` (`de` → de_DE).
  private static let layoutLanguages = [
    "us": "en_US", "gb": "en_GB", "ca": "fr_CA", "au": "en_AU", "ie": "en_GB", "nz": "en_GB", "za": "en_ZA",
    "at": "de_AT", "ch": "de_CH", "be": "fr_BE", "br": "pt_BR", "dk": "da_DK", "se": "sv_SE", "ua": "uk_UA",
    "cz": "cs_CZ", "gr": "el_GR", "ee": "et_EE", "jp": "", "cn": "", "kr": "", "latam": "es_ES",
  ]

  /// Whether `name` looks like a dictionary's name: letters, digits, `_` and `-`.
  static func isName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 32 && !name.hasPrefix("-")
      && name.unicodeScalars.allSatisfy {
        $0.properties.isASCIIHexDigit || ("a"..."z").contains($0)
          || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-"
      }
  }

  static func isInstalled(_ name: String, in directory: String = directory) -> Bool {
    access("\(directory)/\(name).dic", R_OK) == 0 && access("\(directory)/\(name).aff", R_OK) == 0
  }

  /// The dictionaries to load: the named ones, else the installed ones of
  /// the locale (`de_DE.UTF-8`) and of each of the layout's groups (`us,ru`).
  static func chosen(
    named: [String]?, layout: LayoutNames, locale: String, in directory: String = directory
  ) -> [String] {
    if let named, !named.isEmpty { return unique(named) }
    var names: [String] = []
    // One dictionary a language: the locale's country first (de_AT), else the layout's.
    func add(_ name: String) {
      if !name.isEmpty && !names.contains(where: { $0.prefix(2) == name.prefix(2) }) && isInstalled(name, in: directory)
      {
        names.append(name)
      }
    }
    let localeName = locale.prefix { $0 != "." && $0 != "@" }
    if localeName != "C" && localeName != "POSIX" { add(String(localeName)) }
    for code in layout.layout.split(separator: ",") {
      let code = String(code.prefix { $0 != "(" })
      add(layoutLanguages[code] ?? "\(code)_\(code.uppercased())")
    }
    return names
  }

  private static func unique(_ names: [String]) -> [String] {
    var seen = Set<String>()
    return names.filter { seen.insert($0).inserted }
  }

  /// Where the word frequencies are (scripts/wordfreq-convert): beside
  /// the program, `/usr/share/vkbd/wordfreq` for `/usr/bin/vkbd`, and in a
  /// build tree `.build/share/vkbd/wordfreq` for
  /// `.build/x86_64-unknown-linux-gnu/debug/vkbd`.
  static let frequencyDirectory: String = {
    let directory = MatchPaths.directory(of: (try? Files.readLink("/proc/self/exe")) ?? "")
    let beside = ["\(directory)/../share/vkbd/wordfreq", "\(directory)/../../share/vkbd/wordfreq"]
    return beside.first { access($0, R_OK) == 0 } ?? "/usr/share/vkbd/wordfreq"
  }()

  /// Loads `names`: the languages that loaded, and why each other did not
  /// (or loaded without its word frequencies).
  static func load(
    _ names: [String], in directory: String = directory, frequencies: String? = frequencyDirectory
  ) -> (Spelling?, problems: [String]) {
    var languages: [SpellingLanguage] = []
    var problems: [String] = []
    for name in names {
      do {
        let language = try SpellingLanguage.load(name: name, directory: directory, frequencyDirectory: frequencies)
        if let problem = language.frequencyProblem {
          problems.append("\(problem): \(name) corrects without word frequencies")
        }
        if let problem = language.pairsProblem {
          problems.append("\(problem): \(name) corrects without the word before")
        }
        if language.isTruncated {
          problems.append(
            "\(directory)/\(name).dic: more than \(language.formCount) word forms: the rest are not corrected to")
        }
        languages.append(language)
      } catch {
        problems.append("\(error): no autocorrect in \(name)")
      }
    }
    return (
      languages.isEmpty
        ? nil : Spelling(languages: languages, technical: ProgramWords.names(in: ProgramWords.systemDirectories)),
      problems
    )
  }
}
