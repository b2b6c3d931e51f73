import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a request's body however the client sent it.
enum RequestBody {
    /// The body of `request`: `httpBody`, else the whole `httpBodyStream`, else (Linux upload tasks,
    /// whose request carries neither) the body the task was made with. Empty when there is none.
    ///
    /// - Throws: ``MockNetworkError/uploadBodyUnreachable(_:bytes:)`` for an upload task whose body
    ///   Foundation kept from the protocol (Apple platforms pass some upload forms on without it),
    ///   rather than let the handler see an empty body.
    static func read(from request: URLRequest, task: URLSessionTask?) throws -> Data {
        if let body = request.httpBody { return body }
        if let stream = request.httpBodyStream { return try read(stream) }
        if let task = task as? URLSessionUploadTask {
            #if canImport(FoundationNetworking)
                let body = try uploadBody(of: task)
            #else
                let body = Data()
            #endif
            if body.isEmpty, task.countOfBytesExpectedToSend > 0 {
                throw MockNetworkError.uploadBodyUnreachable(
                    request.url?.absoluteString ?? "", bytes: Int(task.countOfBytesExpectedToSend))
            }
            return body
        }
        return Data()
    }

    static func read(_ stream: InputStream) throws -> Data {
        if stream.streamStatus == .notOpen { stream.open() }
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count > 0 {
                data.append(buffer, count: count)
            } else if count == 0 {
                return data
            } else {
                let reason = stream.streamError.map { String(describing: $0) } ?? "no error given"
                throw URLError(
                    .cannotDecodeRawData,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: the request's body stream failed after \(data.count) bytes (\(reason))."
                    ])
            }
        }
    }

    #if canImport(FoundationNetworking)
        /// Linux's Foundation hands an upload task's body to the protocol neither as `httpBody`
        /// nor as a stream; it is only kept on the task, as `knownBody`.
        static func uploadBody(of task: URLSessionTask) throws -> Data {
            // `knownBody` is a stored property of `URLSessionTask`, the upload task's grandparent class.
            var mirror: Mirror? = Mirror(reflecting: task)
            var knownBody: Any?
            while let current = mirror, knownBody == nil {
                knownBody = current.children.first { $0.label == "knownBody" }?.value
                mirror = current.superclassMirror
            }
            guard var value = knownBody else { return Data() }
            // Unwrap `Optional` and the body enum's case down to its payload.
            while let child = Mirror(reflecting: value).children.first,
                Mirror(reflecting: value).displayStyle == .optional || Mirror(reflecting: value).displayStyle == .enum
            {
                value = child.value
            }
            switch value {
            case let data as Data: return data
            case let data as DispatchData: return Data(data)
            case let url as URL: return try Data(contentsOf: url)
            case let stream as InputStream: return try read(stream)
            default: return Data()
            }
        }
    #endif
}
