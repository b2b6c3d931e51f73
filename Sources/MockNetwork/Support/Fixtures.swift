import Foundation

/// Finding fixture files in bundles.
package enum Fixtures {
    /// The file `name` in `bundle`: tried as given, with `.json` when it has no extension, and
    /// under a `Fixtures` folder (`"nested/list"` is also looked for as `Fixtures/nested/list.json`).
    static func url(of name: String, in bundle: Bundle) -> URL? {
        let nameURL = URL(fileURLWithPath: name)
        let ext = nameURL.pathExtension.isEmpty ? "json" : nameURL.pathExtension
        let base = nameURL.pathExtension.isEmpty ? name : String(name.dropLast(ext.count + 1))
        let folder = (base as NSString).deletingLastPathComponent
        let file = (base as NSString).lastPathComponent
        for subdirectory in [folder, folder.isEmpty ? "Fixtures" : "Fixtures/" + folder] {
            let subdirectory = subdirectory.isEmpty ? nil : subdirectory
            if let url = bundle.url(forResource: file, withExtension: ext, subdirectory: subdirectory) { return url }
        }
        return nil
    }

    package static func contentType(of pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "xml": "application/xml"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        default: "application/octet-stream"
        }
    }
}
