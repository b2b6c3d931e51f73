import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the app's breeds screen shows for the outcome of loading the breeds.
///
/// ```swift
/// let text: String
/// do {
///     text = describe(.success(try await client.breeds()))
/// } catch {
///     text = describe(.failure(error))
/// }
/// ```
/// - A list: one line per breed, `1. Maine Coon — popularity 3 — known for …`.
/// - `no breeds` for an empty list, `offline` when the device is not connected,
///   `bad response` when the server's answer could not be used,
///   and `could not load breeds` for anything else.
public func describe(_ result: Result<[Breed], any Error>) -> String {
    switch result {
    case .success(let breeds) where breeds.isEmpty:
        return "no breeds"
    case .success(let breeds):
        return breeds.enumerated()
            .map { index, breed in
                "\(index + 1). \(breed.name) — popularity \(breed.popularity) — known for \(breed.knownFor)"
            }
            .joined(separator: "\n")
    case .failure(let error as URLError) where error.code == .notConnectedToInternet:
        return "offline"
    case .failure(is CatBreedsError):
        return "bad response"
    case .failure:
        return "could not load breeds"
    }
}
