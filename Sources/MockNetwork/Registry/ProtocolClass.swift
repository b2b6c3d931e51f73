import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// One `URLProtocol` subclass per registry.
//
// On Linux neither headers nor request properties reach `startLoading`, but the protocol's
// class does: `type(of: self)` is whatever class the session was configured with. So each
// registry gets a class of its own, made at run time by instantiating a generic subclass
// with a type argument that spells the registry's number in binary digits.
// The nesting depth is the number of binary digits (at most 64), so type names stay short.

protocol RegistryTag {}
enum TagEnd: RegistryTag {}
enum Tag0<Rest: RegistryTag>: RegistryTag {}
enum Tag1<Rest: RegistryTag>: RegistryTag {}

/// The protocol class of one registry; the class itself is the registry's identity.
final class RegistryURLProtocol<Tag: RegistryTag>: MockURLProtocol {}

enum ProtocolClasses {
    /// A protocol class distinct from the class made for any other `number`.
    static func make(number: UInt64) -> MockURLProtocol.Type {
        // The highest digit innermost: consecutive numbers share the inner types of their common
        // high digits, so a new registry adds metadata for the few low digits that changed (two on
        // average), not for all of them.
        var tag: any RegistryTag.Type = TagEnd.self
        let digits = max(1, UInt64.bitWidth - number.leadingZeroBitCount)
        for position in stride(from: digits - 1, through: 0, by: -1) {
            tag = wrap(tag, bit: (number >> UInt64(position)) & 1 == 1)
        }
        return protocolClass(tag)
    }

    private static func wrap<Rest: RegistryTag>(_ rest: Rest.Type, bit: Bool) -> any RegistryTag.Type {
        bit ? Tag1<Rest>.self : Tag0<Rest>.self
    }

    private static func protocolClass<Tag: RegistryTag>(_ tag: Tag.Type) -> MockURLProtocol.Type {
        RegistryURLProtocol<Tag>.self
    }
}
