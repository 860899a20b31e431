extension SQLiteConnection: StoreConnection {
    @discardableResult
    public func run(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try withStatement(sql) { statement in
            try statement.bind(parameters)
            try statement.step()
            return changes
        }
    }

    public func texts(_ sql: String, _ parameters: [SQLValue]) throws -> [String] {
        try withStatement(sql) { statement in
            try statement.bind(parameters)
            var texts: [String] = []
            while try statement.step() {
                if let text = statement.string(at: 0) { texts.append(text) }
            }
            return texts
        }
    }

    public func integer(_ sql: String, _ parameters: [SQLValue]) throws -> Int64? {
        try withStatement(sql) { statement in
            try statement.bind(parameters)
            guard try statement.step(), !statement.isNull(at: 0) else { return nil }
            return statement.int64(at: 0)
        }
    }

    /// `BEGIN IMMEDIATE`: the write lock is taken at once, so a read-modify-write cannot fail
    /// half-way with `SQLITE_BUSY`.
    public func writeTransaction<R>(_ body: () throws -> R) throws -> R {
        try transaction(.immediate, body)
    }

    public func schemaVersion() throws -> Int { try userVersion() }

    public func setSchemaVersion(_ version: Int32) throws { try setUserVersion(version) }
}

extension SQLiteStatement {
    /// Binds `values` to parameters 1, 2, …
    func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .text(let text): try bind(text, at: index)
            case .integer(let number): try bind(number, at: index)
            case .null: try bindNull(at: index)
            }
        }
    }
}
