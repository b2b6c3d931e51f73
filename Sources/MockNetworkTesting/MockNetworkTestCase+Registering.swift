#if canImport(XCTest)
    import Foundation
    import MockNetwork
    import XCTest

    #if Archives
        import MockNetworkGraphQL
    #endif

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Every form of `MockRegistry.register`, on the base class: each answers this test's requests
    /// through `mocks` (a test checks that the two lists stay the same).
    extension MockNetworkTestCase {
        /// Answers this test's requests for `url` with `handler`; see `MockRegistry`.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests for `url` with `response`, the same each time, with no
        /// closure: answered at URLSession's own cost; see `MockRegistry`.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            answer response: MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, answer: response)
        }

        /// Answers this test's requests that `match` describes with `response`, the same each time,
        /// with no closure; see `MockRegistry`.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            answer response: MockResponse
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                answer: response)
        }

        /// Answers this test's requests for `url` with a handler in the tutorials' shape.
        @_disfavoredOverload  // a handler that only throws picks the MockResponse form
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping MockHandler
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests for `url` with `handler`; see `MockRegistry`.
        @discardableResult
        public func register(
            _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests for `url` with a handler in the tutorials' shape.
        @_disfavoredOverload  // a handler that only throws picks the MockResponse form
        @discardableResult
        public func register(
            _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping MockHandler
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests that `match` describes with a handler in the tutorials' shape.
        @_disfavoredOverload  // a handler that only throws picks the MockResponse form
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping MockHandler
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                handler)
        }

        /// Answers this test's requests that `match` describes with `handler`.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                handler)
        }

        /// Answers this test's requests for the URL template `url` with a handler that also gets the captured values: `parameters["id"]`.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest, RouteParameters) throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests for the URL template `url` with an `async` handler that also gets the captured values.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest, RouteParameters) async throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests that `match` describes with a handler that also gets the values its template captured.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest, RouteParameters) throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                handler)
        }

        /// Answers this test's requests that `match` describes with an `async` handler that also gets the values its template captured.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest, RouteParameters) async throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                handler)
        }

        #if Archives  // GraphQL comes with the archives, which read it
            /// Answers this test's requests that `match` describes (typically `.graphQL("GetUser")`) with a
            /// handler that also gets the request's GraphQL operation; see `MockRegistry`. A closure that
            /// reads no member of the operation compiles as the `(request, parameters)` form, which answers a
            /// GraphQL match the same; name the type, `(request, operation: GraphQLOperation)`, to pass it on.
            @_disfavoredOverload  // `{ request, _ in … }` keeps picking the (request, parameters) form
            @discardableResult
            public func register(
                _ match: RequestMatch, expectedCalls: Int? = nil,
                fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
                _ handler: @escaping @Sendable (URLRequest, GraphQLOperation) throws -> MockResponse
            ) -> MockRoute {
                mocks.register(
                    match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                    handler)
            }

            /// Answers this test's requests that `match` describes with an `async` handler that also gets the
            /// request's GraphQL operation.
            @_disfavoredOverload  // `{ request, _ in … }` keeps picking the (request, parameters) form
            @discardableResult
            public func register(
                _ match: RequestMatch, expectedCalls: Int? = nil,
                fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
                _ handler: @escaping @Sendable (URLRequest, GraphQLOperation) async throws -> MockResponse
            ) -> MockRoute {
                mocks.register(
                    match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                    handler)
            }
        #endif

        /// Answers this test's requests for `url` with `responses`, one each, in order; see `MockRegistry`.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            sequence responses: [MockResponse]
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, sequence: responses)
        }

        /// Answers this test's requests for `url` with `responses`, one each, in order.
        @discardableResult
        public func register(
            _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            sequence responses: [MockResponse]
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, sequence: responses)
        }

        /// Answers this test's requests that `match` describes with `responses`, one each, in order: `[.status(503), .json(body)]` for a client that retries.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            sequence responses: [MockResponse]
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                sequence: responses)
        }

        /// Answers this test's requests for `url` with `response`, the same each time, with no closure.
        @discardableResult
        public func register(
            _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            answer response: MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, answer: response)
        }

        /// Answers this test's requests for `url` with an `async` handler; see `MockRegistry`.
        @discardableResult
        public func register(
            _ url: String, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests for `url` with an `async` handler.
        @discardableResult
        public func register(
            _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
                column: column, handler)
        }

        /// Answers this test's requests that `match` describes with an `async` handler.
        @discardableResult
        public func register(
            _ match: RequestMatch, expectedCalls: Int? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
            _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
        ) -> MockRoute {
            mocks.register(
                match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
                handler)
        }
    }
#endif
