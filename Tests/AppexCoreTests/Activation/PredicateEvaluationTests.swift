import AppexCore
import Testing

/// Every operator, option and construct, evaluated against constants and a small object.
@Suite struct PredicateEvaluationTests {
    static let object: PredicateValue = .dictionary([
        "name": .string("Crème Brûlée"),
        "count": .integer(3),
        "ratio": .real(0.5),
        "flag": .boolean(true),
        "tags": .array([.string("a"), .string("b"), .string("c")]),
        "numbers": .array([.integer(1), .integer(2), .integer(3), .integer(4)]),
        "people": .array([
            .dictionary(["age": .integer(30), "pets": .array([.dictionary(["kind": .string("cat"), "legs": .integer(4)])])]),
            .dictionary(["age": .integer(12), "pets": .array([])]),
        ]),
        "user info": .dictionary(["key with space": .string("v"), "IN": .integer(7)]),
    ])

    @Test(arguments: [
        ("TRUEPREDICATE", true), ("FALSEPREDICATE", false), ("truepredicate", true),
        ("1 == 1", true), ("1 = 1", true), ("1 != 2", true), ("1 <> 1", false),
        ("1 < 2", true), ("2 <= 2", true), ("2 =< 2", true), ("3 > 2", true), ("2 >= 3", false), ("3 => 3", true),
        ("1 == 1.0", true), ("YES == 1", true), ("TRUE == yes", true), ("NO == FALSE", true),
        ("NULL == nil", true), ("nil == 0", false), ("'a' == \"a\"", true), ("'a' < 'b'", true),
        ("0x1F == 31", true), ("0o17 == 15", true), ("0b101 == 5", true), ("1e3 == 1000", true), ("-2 < -1", true),
        ("1 + 2 * 3 == 7", true), ("(1 + 2) * 3 == 9", true), ("2 ** 3 == 8", true), ("7 / 2 == 3.5", true), ("-(1 + 1) == -2", true),
        ("5 BETWEEN {1, 5}", true), ("0 BETWEEN {1, 5}", false), ("'b' BETWEEN {'a', 'c'}", true),
        ("2 IN {1, 2, 3}", true), ("4 IN {1, 2, 3}", false), ("'ell' IN 'hello'", true), ("'E' IN[c] {'a', 'e'}", true),
        ("'hello' CONTAINS 'ell'", true), ("'hello' CONTAINS 'ELL'", false), ("'hello' CONTAINS[c] 'ELL'", true),
        ("{1, 2} CONTAINS 2", true),
        ("'hello' BEGINSWITH 'he'", true), ("'hello' ENDSWITH 'lo'", true), ("'hello' ENDSWITH[c] 'LO'", true),
        ("'résumé' == 'resume'", false), ("'résumé' ==[d] 'resume'", true), ("'RÉSUMÉ' ==[cd] 'resume'", true),
        ("'résumé' BEGINSWITH[d] 'res'", true),
        ("'hello' LIKE 'h*o'", true), ("'hello' LIKE 'h?llo'", true), ("'hello' LIKE 'h?lo'", false), ("'HELLO' LIKE[c] 'h*'", true),
        ("'a*b' LIKE 'a\\\\*b'", true), ("'axb' LIKE 'a\\\\*b'", false), ("'' LIKE '*'", true),
        ("'hello' MATCHES 'h.*o'", true), ("'hello' MATCHES 'ell'", false), ("'HELLO' MATCHES[c] 'h[a-z]+'", true),
        ("NOT FALSEPREDICATE", true), ("! TRUEPREDICATE", false), ("NOT NOT TRUEPREDICATE", true),
        ("TRUEPREDICATE AND FALSEPREDICATE", false), ("TRUEPREDICATE && TRUEPREDICATE", true),
        ("FALSEPREDICATE OR TRUEPREDICATE", true), ("FALSEPREDICATE || FALSEPREDICATE", false),
        // AND binds tighter than OR: this is TRUE OR (FALSE AND FALSE).
        ("TRUEPREDICATE OR FALSEPREDICATE AND FALSEPREDICATE", true),
        ("(TRUEPREDICATE OR FALSEPREDICATE) AND FALSEPREDICATE", false),
        ("NOT TRUEPREDICATE OR TRUEPREDICATE", true),
        ("1 == 1 and 2 == 2 Or 1 == 2", true),
        ("\n\t1\n==\n\t1\n", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.image'", true), ("'public.jpeg' uti-conforms-to 'public.data'", true),
        ("'public.jpeg' UTI-CONFORMS-TO 'public.movie'", false), ("'public.JPEG' UTI-CONFORMS-TO 'PUBLIC.IMAGE'", true),
        ("'public.jpeg' UTI-EQUALS 'public.jpeg'", true), ("'public.jpeg' UTI-EQUALS 'public.image'", false),
        ("'tab\\there' == 'tab\there'", true), ("'it\\'s' == \"it's\"", true), ("'\\u00e9' == 'é'", true), ("'\\x41' == 'A'", true),
    ])
    func constants(format: String, expected: Bool) throws {
        #expect(try evaluate(format) == expected, "\(format)")
    }

    @Test(arguments: [
        ("name == 'Crème Brûlée'", true), ("name ==[cd] 'creme brulee'", true), ("count == 3", true), ("ratio < 1", true),
        ("flag == YES", true), ("SELF.count == 3", true), ("missing == nil", true), ("missing.deeper == nil", true),
        ("tags.@count == 3", true), ("numbers.@sum == 10", true), ("numbers.@avg == 2.5", true),
        ("numbers.@min == 1", true), ("numbers.@max == 4", true), ("people.@max.age == 30", true), ("people.@sum.age == 42", true),
        ("people.@count.age == 2", true), ("people.@distinctUnionOfArrays.pets.@count == 1", true),
        ("people.@unionOfObjects.age.@count == 2", true), ("{1, 1, 2}.@distinctUnionOfObjects.@count == 2", true),
        ("ANY tags == 'b'", true), ("SOME tags == 'z'", false), ("ALL tags IN {'a', 'b', 'c'}", true),
        ("ALL tags == 'a'", false), ("NONE tags == 'z'", true), ("NONE tags == 'a'", false), ("ALL missing == 1", true),
        ("ANY people.age > 20", true), ("ALL people.age > 20", false), ("ANY numbers BETWEEN {4, 9}", true),
        ("tags[FIRST] == 'a'", true), ("tags[LAST] == 'c'", true), ("tags[SIZE] == 3", true), ("tags[1] == 'b'", true),
        ("tags[9] == nil", true), ("people[0].age == 30", true),
        ("SELF.\"user info\".\"key with space\" == 'v'", true), ("#IN == nil", true), ("SELF.\"user info\".#IN == 7", true),
        ("SELF['count'] == 3", true), ("name.length == 12", true),
        ("SUBQUERY(people, $p, $p.age > 18).@count == 1", true),
        ("SUBQUERY(people, $p, $p.age > 18)[FIRST].age == 30", true),
        ("SUBQUERY(people, $p, age > 18).@count == 1", true),
        ("SUBQUERY(people, $p, SUBQUERY($p.pets, $pet, $pet.kind == 'cat' AND SUBQUERY({1, 2, 3}, $n, $n <= $pet.legs).@count == 3).@count > 0).@count == 1", true),
        ("SUBQUERY(people, $p, SUBQUERY($p.pets, $pet, SUBQUERY({1, 2, 3}, $n, $n > $pet.legs).@count > 0).@count > 0).@count == 0", true),
        ("SUBQUERY(tags, $t, $t == 'a' OR $t == 'c').@count == 2", true),
        ("count == 'three'", false), ("name > 3", false), ("tags == {'a', 'b', 'c'}", true), ("tags != {'a'}", true),
    ])
    func keyPaths(format: String, expected: Bool) throws {
        #expect(try evaluate(format, on: Self.object) == expected, "\(format)")
    }

    @Test func keywordsInAnyCase() throws {
        #expect(try evaluate("subquery(numbers, $n, $n > 2).@count == 2 and any tags == 'a' oR false == true", on: Self.object))
        #expect(try evaluate("Not NONE tags BeginsWith 'a' AND tags.@count == 3", on: Self.object))
        #expect(try evaluate("NOT NONE tags BeginsWith 'a' AND tags.@count == 3", on: Self.object))
    }
}
