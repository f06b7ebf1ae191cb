import CHunspell
import KeyboardEngine
import LinuxSystem

extension SpellingLanguage {
  /// The largest `.aff` and `.dic` files read.
  static let maximumFileBytes = 64 << 20
  /// The largest frequency file read (wordfreq's largest list, Russian's,
  /// makes 6.4 MB).
  static let maximumFrequencyBytes = 32 << 20

  /// Loads `name`.aff and `name`.dic from `directory`, and the language's
  /// frequency list (`en.freq` for en_US) and word pairs (`en.pairs`,
  /// where there are) from `frequencyDirectory`. A dictionary file that is
  /// missing, too big or does not parse is an error naming it; a frequency
  /// file that is, or a word-pair file that is too big or does not parse,
  /// is ``frequencyProblem`` or ``pairsProblem``, and the language corrects
  /// without it.
  public static func load(
    name: String, directory: String = "/usr/share/hunspell", frequencyDirectory: String? = nil
  ) throws(SpellingError) -> SpellingLanguage {
    guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
      throw SpellingError(path: directory, reason: "\"\(name)\" is not a dictionary name")
    }
    let affixPath = "\(directory)/\(name).aff"
    let dictionaryPath = "\(directory)/\(name).dic"
    let affixes = try read(affixPath, limit: maximumFileBytes)
    let dictionary = try read(dictionaryPath, limit: maximumFileBytes)
    let language = name.prefix { $0 != "_" && $0 != "-" }
    let frequencies = frequencyDirectory.map { directory in
      Result { () throws(SpellingError) in try read("\(directory)/\(language).freq", limit: maximumFrequencyBytes) }
    }
    // Word pairs exist for some languages only: none is no problem.
    let pairs = frequencyDirectory.flatMap { directory -> Result<SpellingFile, SpellingError>? in
      let path = "\(directory)/\(language).pairs"
      do throws(SystemError) {
        return .success(SpellingFile(path: path, bytes: try Files.read(path, limit: maximumFrequencyBytes)))
      } catch {
        return error.errno == .noSuchFileOrDirectory
          ? nil : .failure(problem(path, error, limit: maximumFrequencyBytes))
      }
    }
    return try SpellingLanguage(
      name: name, affixes: affixes, dictionary: dictionary, frequencies: frequencies, pairs: pairs,
      checker: { () throws(SpellingError) in try Hunspell(affixPath: affixPath, dictionaryPath: dictionaryPath) })
  }

  /// The bytes of the file at `path`, at most `limit` of them, read as
  /// every file is (LinuxSystem's ``Files``).
  private static func read(_ path: String, limit: Int) throws(SpellingError) -> SpellingFile {
    do {
      return SpellingFile(path: path, bytes: try Files.read(path, limit: limit))
    } catch {
      throw problem(path, error, limit: limit)
    }
  }

  /// What reading `path`, at most `limit` bytes, failed with.
  private static func problem(_ path: String, _ error: SystemError, limit: Int) -> SpellingError {
    SpellingError(
      path: path, reason: error.errno == .fileTooLarge ? "larger than \(limit >> 20) MiB" : "\(error.errno)")
  }
}

/// libhunspell over a dictionary's `.aff` and `.dic` files, which it reads
/// itself: the engine's ``WordChecker``.
final class Hunspell: WordChecker, @unchecked Sendable {
  private let handle: OpaquePointer

  init(affixPath: String, dictionaryPath: String) throws(SpellingError) {
    guard let handle = Hunspell_create(affixPath, dictionaryPath) else {
      throw SpellingError(path: dictionaryPath, reason: "libhunspell could not load it")
    }
    self.handle = handle
  }

  deinit { Hunspell_destroy(handle) }

  func spells(_ word: UnsafePointer<CChar>) -> Bool { Hunspell_spell(handle, word) != 0 }
}
