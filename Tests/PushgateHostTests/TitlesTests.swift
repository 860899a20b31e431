import Foundation
import PushgateCore
@testable import PushgateHost
import Testing
import PushgateTestSupport

/// protocol/host-api.md §9 line 4 (locale rules) and the composition rules of §5.
@Suite(.hangLimit(.minutes(1))) struct TitlesTests {
    @Test func localesNormaliseByTheFileRules() throws {
        let titles = try Fixtures.titles()
        #expect(titles.normalize("zh-Hant-TW") == "zh-TW")
        #expect(titles.normalize("zh_HK") == "zh-TW")
        #expect(titles.normalize("zh-Hans") == "zh-CN")
        #expect(titles.normalize("pt") == "pt-BR")
        #expect(titles.normalize("pt-PT") == "pt-BR")
        #expect(titles.normalize("EN-gb") == "en")
        #expect(titles.normalize("ua") == "uk")
        #expect(titles.normalize("frx") == "en")
        #expect(titles.normalize("xx") == "en")
        #expect(titles.normalize(nil) == "en")
        #expect(titles.normalize("") == "en")
        #expect(titles.title("ready", locale: "zh-TW") == "任務已完成")
        #expect(titles.title("permission", locale: "pt-BR") == "Precisa de permissão")
        #expect(titles.title("no_such_type", locale: "fr") == "Mise à jour")
    }

    @Test func bundledTableMatchesTheFixture() throws {
        let bundled = try NotificationTitles.bundled()
        let fixture = try Fixtures.titles()
        for locale in ["en", "fr", "zh-CN", "zh-TW", "uk", "es", "pt-BR", "ko", "pl", "ja"] {
            // `resolved` is Pushgate's own key ("Answered on desktop"), which the fixture predates.
            for type in EventType.allCases where type != .resolved {
                #expect(bundled.title(type.rawValue, locale: locale) == fixture.title(type.rawValue, locale: locale))
            }
            #expect(bundled.title(EventType.resolved.rawValue, locale: locale) != bundled.title(EventType.update.rawValue, locale: locale))
        }
        #expect(bundled.title("resolved", locale: "en") == "Answered on desktop")
    }

    @Test func bodyIsSessionNameOrTaskNameOrTheSessionWord() throws {
        let composer = AlertComposer(titles: try Fixtures.titles())
        #expect(composer.body(for: HostEvent(type: .ready, sessionId: "s", sessionName: "  Fix login  "), locale: "en") == "Fix login")
        #expect(composer.body(for: HostEvent(type: .ready, sessionId: "s", sessionName: "   "), locale: "zh-TW") == "工作階段")
        #expect(composer.body(for: HostEvent(type: .taskError, sessionId: "s", sessionName: "x", taskName: "Nightly"), locale: "en") == "Nightly")
    }

    @Test func batchesGroupByLocaleAndEnvironmentWithAtMost100Tokens() throws {
        let composer = AlertComposer(titles: try Fixtures.titles())
        var tokens = (0..<101).map { AlertToken(token: String(format: "%064x", $0), locale: "en-US") }
        tokens.append(AlertToken(token: "aa", locale: "fr"))
        tokens.append(AlertToken(token: "bb", locale: "fr", environment: "sandbox"))
        tokens.append(AlertToken(token: "cc", locale: "fr-CA"))
        let batches = composer.batches(for: HostEvent(type: .question, sessionId: "s1", sessionName: "n"), tokens: tokens,
                                       badge: 3, tag: "question-s1")
        #expect(batches.map(\.tokens.count) == [100, 1, 2, 1])
        #expect(batches.map(\.title) == ["Needs your answer", "Needs your answer", "Besoin de votre réponse", "Besoin de votre réponse"])
        #expect(batches.map(\.environment) == ["production", "production", "production", "sandbox"])
        #expect(Set(batches.map(\.badge)) == [3])
        #expect(Set(batches.flatMap(\.tokens)).count == 104)
        #expect(batches[0].data.map(\.key) == ["sessionId", "eventId", "kind", "path"])
        #expect(batches[0].data.last?.value == "/sessions/s1")
        #expect(batches[0].attention == AlertAttention(level: .timeSensitive, relevance: 1, category: "PUSHGATE_QUESTION"))
    }
}
