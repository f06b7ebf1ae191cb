extension String {
  /// The string of `scalars`, appended one by one: String's initializer
  /// from a collection of scalars takes a generic path that allocates for
  /// each one (2,000 allocations for a 2,000-character expansion).
  public init(scalars: some Sequence<Unicode.Scalar>) {
    var view = String.UnicodeScalarView()
    for scalar in scalars { view.append(scalar) }
    self.init(view)
  }
}
