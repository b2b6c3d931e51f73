import Foundation
import MockNetwork
import Testing

/// JSON values compare as JSON means them, read any JSON text, and write one text for equal values.
@Suite struct JSONValueTests {
    @Test func numbersCompareByValueAndObjectsWhateverTheirKeyOrder() throws {
        #expect(try JSONValue(json: "7") == JSONValue(json: "7.0"))
        #expect(try JSONValue(json: "7") == 7)
        #expect(try JSONValue(json: "1e2") == 100)
        #expect(try JSONValue(json: #"{"a": 1, "b": [true, null]}"#) == JSONValue(json: #"{"b":[true,null],"a":1.0}"#))
        #expect(try JSONValue(json: "[1, 2]") != JSONValue(json: "[2, 1]"))
        #expect(try JSONValue(json: "1") != JSONValue(json: "true"))
        #expect(try JSONValue(json: "0") != JSONValue(json: "false"))
        #expect(try JSONValue(json: #""7""#) != 7)
        #expect(Set<JSONValue>([7, 7.0, ["a": 1]]).count == 2)
    }

    @Test func literalsSpellEveryKind() throws {
        let value: JSONValue = ["id": 7, "name": "Ada", "admin": false, "score": 1.5, "tags": ["x"], "boss": nil]
        #expect(
            value
                == .object([
                    "id": .number(7), "name": .string("Ada"), "admin": .bool(false), "score": .number(1.5),
                    "tags": .array([.string("x")]), "boss": .null,
                ]))
        #expect(value["tags"]?[0] == "x")
        #expect(value["tags"]?[1] == nil)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
    }

    /// Each kind reads as its Swift value with no pattern match, and as `nil` for every other kind:
    /// an ID sent as a string is no number, and one sent as a number is no string.
    @Test func accessorsReadEachKindAndNoOther() throws {
        let variables = try JSONValue(
            json: #"{"id": "7", "first": 10, "ratio": 0.5, "admin": true, "tags": ["a"], "filter": {"x": null}}"#)
        #expect(variables["id"]?.stringValue == "7")
        #expect(variables["id"]?.intValue == nil)
        #expect(variables["first"]?.numberValue == 10)
        #expect(variables["first"]?.intValue == 10)
        #expect(variables["first"]?.stringValue == nil)
        #expect(variables["ratio"]?.numberValue == 0.5)
        #expect(variables["ratio"]?.intValue == nil)
        #expect(variables["admin"]?.boolValue == true)
        #expect(variables["admin"]?.numberValue == nil)
        #expect(variables["tags"]?.arrayValue == ["a"])
        #expect(variables["filter"]?.objectValue == ["x": nil])
        #expect(variables["filter"]?["x"]?.stringValue == nil)
        #expect(JSONValue.number(1e300).intValue == nil)
        #expect(variables.objectValue?.count == 6)
        #expect(variables.arrayValue == nil)
    }

    @Test func textIsCompactWithSortedKeys() throws {
        let value = try JSONValue(json: #"{"z": 1.0, "a": [1.5, -0, 1e21, "q\"\\\n\u0001é"], "m": {"k": null}}"#)
        #expect(value.description == #"{"a":[1.5,0,1e+21,"q\"\\\n\u0001é"],"m":{"k":null},"z":1}"#)
        #expect(try JSONValue(json: value.description) == value)
        #expect(JSONValue.number(.infinity).description == "null")
    }

    @Test func encodesAndDecodesInsideOtherTypes() throws {
        struct Wrapper: Codable, Equatable {
            var extensions: JSONValue
        }
        let wrapper = Wrapper(extensions: ["code": "NOT_FOUND", "retry": [1, 2]])
        let data = try JSONEncoder().encode(wrapper)
        #expect(try JSONDecoder().decode(Wrapper.self, from: data) == wrapper)
    }

    @Test func textThatIsNotJSONIsAClearError() {
        #expect(throws: MockNetworkError.self) { try JSONValue(json: "{id: 7}") }
        #expect(throws: MockNetworkError.self) { try JSONValue(json: Data([0xFF, 0x00])) }
        do {
            _ = try JSONValue(json: "")
            Issue.record("no error")
        } catch {
            #expect("\(error)".hasPrefix("MockNetwork: the empty text is not JSON: "))
            #expect("\(error)".hasSuffix(#"Give JSON text, such as {"id": 7}."#))
        }
        do {
            _ = try JSONValue(json: "{id: 7}")
            Issue.record("no error")
        } catch {
            #expect("\(error)".hasPrefix("MockNetwork: the text {id: 7} is not JSON: "))
        }
    }

    @Test func duplicateKeysAndDeepNestingAreNoCrash() {
        #expect((try? JSONValue(json: #"{"a": 1, "a": 2}"#))?["a"] != nil)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        _ = try? JSONValue(json: deep)
    }
}
