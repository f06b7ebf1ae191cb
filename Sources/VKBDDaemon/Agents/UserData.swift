import AgentProtocol

/// What an agent's user keeps, in use while that agent counts: their own
/// match files and the words they taught autocorrect.
extension AgentServer {
  /// Uses what `agent`'s user keeps: their match files and learned words.
  func useUserData(of agent: UInt64) {
    useSnippets(of: agent)
    useWords(of: agent)
  }

  /// What `agent`'s user keeps is no longer in use.
  func dropUserData(of agent: UInt64) {
    dropSnippets(of: agent)
    if wordsFrom == agent {
      wordsFrom = nil
      onEvent(.learnedWords(nil))
    }
  }

  func useWords(of agent: UInt64) {
    guard let words = connections[agent]?.learnedWords else { return }
    wordsFrom = agent
    onEvent(.learnedWords(words))
  }

  /// Gives a word the user just taught to the agent that keeps their
  /// words; false when none does (it is then kept until the daemon stops).
  @discardableResult
  func teach(_ word: String) -> Bool {
    guard let agent = wordsFrom ?? reporting else { return false }
    return send(WordLearned(word: word).encoded(), to: agent)
  }

  /// Uses the match files of `agent`'s user.
  func useSnippets(of agent: UInt64) {
    guard let connection = connections[agent], let sent = connection.snippetFiles else { return }
    snippetsFrom = agent
    onEvent(.snippets(UserSnippets.Sent(files: sent.files, directory: sent.directory, uid: connection.uid)))
  }

  /// The user whose match files were in use is gone, or no longer counts.
  func dropSnippets(of agent: UInt64) {
    guard snippetsFrom == agent else { return }
    snippetsFrom = nil
    onEvent(.snippets(nil))
  }
}
