import Foundation

/// One cat breed, as listed by `breeds.json`.
public struct Breed: Decodable, Equatable, Sendable {
    /// The breed's name, e.g. "Maine Coon".
    public let name: String
    /// The breed's popularity rank: 1 is the most popular.
    public let popularity: Int
    /// What the breed is best known for, in a few words.
    public let knownFor: String
    /// A photo of the breed.
    public let photoURL: URL
    /// A page with more about the breed.
    public let infoURL: URL
    /// Who took the photo.
    public let credit: String
    /// The photo's license, e.g. "CC BY-SA 4.0".
    public let license: String
    /// A paragraph about the breed.
    public let description: String

    /// The JSON is decoded with `.convertFromSnakeCase`, which turns `photo_url` into `photoUrl`,
    /// not `photoURL`; the keys say so for the two URL properties.
    enum CodingKeys: String, CodingKey {
        case name, popularity, knownFor, credit, license, description
        case photoURL = "photoUrl"
        case infoURL = "infoUrl"
    }
}
