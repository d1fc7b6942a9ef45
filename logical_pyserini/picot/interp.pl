/*  π-CoT knowledge bases and the demand-driven SLICE interpreter.

    Every question gets its own module M (picot_kb_N).  In M:
      - readable predicates (those a reader can answer from text) hold facts only;
      - other predicates are defined by rules loaded from text (PhantomWiki's kinship rules, or none).
    solve/2 runs a query against M; when it reaches a readable goal whose facts have not been
    acquired yet it records the goal as pending and fails.  Python acquires the pending goals
    (retrieval + reader), asserts the facts, marks the goals acquired, and runs solve/2 again
    until nothing is pending: a fixpoint that fetches exactly the facts the query needs.

    Python never builds clauses from text: values arrive as JSON and become strings here
    (json_read/3), predicate names are checked against readable/3, and queries are
    parsed with term_string/3 then checked by check_query/2 before anything runs.
*/
:- module(picot_interp,
          [ kb_create/2, kb_destroy/1, kb_load_rules/2, kb_add_fact/3, kb_mark_acquired/2,
            kb_pending/3, kb_states/4, kb_facts/2, kb_parse_query/3 ]).
:- use_module(library(http/json)).
:- use_module(library(solution_sequences)).
:- use_module(library(aggregate)).
:- use_module(library(lists)).

:- dynamic readable/3.      % readable(M, Name, Arity)
:- dynamic acquired/2.      % acquired(M, GoalPattern): facts for this pattern were fetched
:- dynamic pending/2.       % pending(M, Goal): needed by the last solve/2 run
:- dynamic defined/3.       % defined(M, Name, Arity): has rules in M
:- dynamic final/3.         % final(M, Name, Arity): defined by an earlier rules text (kept)

%!  kb_create(+M, +ReadableJSON) is det.
%   ReadableJSON: [["name", arity], ...].  Throws picot_reserved(Name, Arity) for a name that
%   SWI-Prolog protects (length/2, atom/1, ...): no module may redefine those.
kb_create(M, ReadableJSON) :-
    kb_destroy(M),
    json_text(ReadableJSON, List),
    forall(member([NameS, A], List),
           ( atom_string(N, NameS),
             catch(dynamic(M:N/A), error(permission_error(_, _, _), _), throw(picot_reserved(N, A))),
             assertz(readable(M, N, A)) )).

json_text(Text, Term) :-
    setup_call_cleanup(open_string(Text, S), json_read(S, Term, [value_string_as(string)]), close(S)).

%!  kb_destroy(+M) is det.  Removes every clause of M and all bookkeeping.
kb_destroy(M) :-
    forall(( current_predicate(M:N/A), functor(H, N, A),
             \+ predicate_property(M:H, imported_from(_)) ),
           abolish(M:N/A)),
    retractall(readable(M, _, _)),
    retractall(acquired(M, _)),
    retractall(pending(M, _)),
    retractall(defined(M, _, _)),
    retractall(final(M, _, _)).

%!  kb_load_rules(+M, +Text) is det.
%   Clauses from Text are asserted into M, except directives, facts/rules for readable
%   predicates (those are filled only from text) and clauses whose head is a builtin.
%   Predicates defined by an earlier call stay as they are: the first text wins.
kb_load_rules(M, Text) :-
    setup_call_cleanup(open_string(Text, S), load_clauses(M, S), close(S)),
    forall(( defined(M, N, A), \+ final(M, N, A) ), assertz(final(M, N, A))).

load_clauses(M, S) :-
    read_term(S, T, []),
    (   T == end_of_file
    ->  true
    ;   add_clause(M, T), load_clauses(M, S)
    ).

add_clause(_, (:- _)) :- !.
add_clause(M, (H :- B)) :- !, add_rule(M, H, B).
add_clause(M, H) :- add_rule(M, H, true).

add_rule(M, H, B) :-
    callable(H), functor(H, N, A),
    \+ readable(M, N, A), \+ builtin_name(N, A), \+ final(M, N, A), !,
    (   defined(M, N, A) -> true ; assertz(defined(M, N, A)), dynamic(M:N/A) ),
    text_comparisons(B, B1),
    assertz(M:(H :- B1)).
add_rule(_, _, _).

%!  kb_add_fact(+M, +Name, +ArgsJSON) is semidet.
%   Asserts Name(Args...) into M when Name/arity is readable there; JSON values become strings.
kb_add_fact(M, NameS, ArgsJSON) :-
    atom_string(N, NameS),
    json_text(ArgsJSON, Args0),
    is_list(Args0),
    maplist(to_value, Args0, Args),
    length(Args, A),
    readable(M, N, A),
    F =.. [N|Args],
    (   M:F -> true ; assertz(M:F) ).

to_value(V, V) :- string(V), !.
to_value(V, V) :- number(V), !.
to_value(V, S) :- term_string(V, S).

%!  kb_mark_acquired(+M, +PatternJSON) is det.
%   PatternJSON: {"pred": name, "args": [string|null, ...]}; null = any value was asked for.
kb_mark_acquired(M, PatternJSON) :-
    pattern_goal(PatternJSON, G),
    (   acquired(M, G0), G0 =@= G -> true ; assertz(acquired(M, G)) ).

pattern_goal(JSON, G) :-
    json_text(JSON, json(Pairs)),
    memberchk(pred=NameS, Pairs), memberchk(args=Args0, Pairs),
    atom_string(N, NameS),
    maplist(null_to_var, Args0, Args),
    G =.. [N|Args].

null_to_var(@(null), _) :- !.
null_to_var(V, V).

is_acquired(M, G) :- acquired(M, P), subsumes_term(P, G), !.

%!  kb_parse_query(+Text, -QueryJSON, +M) is det.
%   Parses Text as a conjunction and checks it; QueryJSON is {"ok":true,"vars":[...]} or
%   {"ok":false,"error":"..."}.  Never runs the query.
kb_parse_query(Text, JSON, M) :-
    catch(( term_string(Q, Text, [variable_names(Vs)]),
            check_query(M, Q),
            findall(Nm, member(Nm=_, Vs), Names),
            JSON0 = json([ok= @(true), vars=Names]) ),
          E,
          ( error_text(E, Msg), JSON0 = json([ok= @(false), error=Msg]) )),
    with_output_to(string(JSON), json_write(current_output, JSON0, [width(0)])).

error_text(picot(Msg), Msg) :- !.
error_text(error(syntax_error(What), context(_, _)), Msg) :- !, format(string(Msg), "syntax error: ~w", [What]).
error_text(error(syntax_error(What), string(_, Pos)), Msg) :- !, format(string(Msg), "syntax error: ~w at character ~w", [What, Pos]).
error_text(E, Msg) :- term_string(E, Msg).

%!  check_query(+M, +Q) is det.  Throws picot(Message) for anything but known goals.
check_query(_, V) :- var(V), !, throw(picot("a variable is not a goal")).
check_query(M, (A, B)) :- !, check_query(M, A), check_query(M, B).
check_query(M, \+ G) :- !, check_query(M, G).
check_query(M, (A ; B)) :- !, check_query(M, A), check_query(M, B).
check_query(M, (A -> B)) :- !, check_query(M, A), check_query(M, B).
check_query(M, aggregate_all(Spec, G, R)) :- !,
    ( aggregate_spec(Spec) -> true ; throw(picot("unsupported aggregate_all/3 specification")) ),
    ( var(R) ; number(R) ), !,
    check_query(M, G).
check_query(M, distinct(G)) :- !, check_query(M, G).
check_query(_, G) :- builtin_goal(G), !.
check_query(M, G) :-
    callable(G), functor(G, N, A),
    (   readable(M, N, A) -> true
    ;   defined(M, N, A) -> true
    ;   format(string(Msg), "unknown predicate ~q/~d", [N, A]), throw(picot(Msg))
    ),
    G =.. [_|Args],
    forall(member(X, Args), ( var(X) ; atomic(X) ) -> true ; throw(picot("arguments must be variables or constants"))).

aggregate_spec(count).
aggregate_spec(count(_)).
aggregate_spec(sum(_)).
aggregate_spec(max(_)).
aggregate_spec(min(_)).
aggregate_spec(bag(_)).
aggregate_spec(set(_)).

builtin_name(N, A) :- functor(G, N, A), builtin_goal(G).
builtin_goal(_ \= _).
builtin_goal(_ = _).
builtin_goal(_ == _).
builtin_goal(_ \== _).
builtin_goal(_ < _).
builtin_goal(_ > _).
builtin_goal(_ =< _).
builtin_goal(_ >= _).
builtin_goal(_ is _).
builtin_goal(true).

order_op(<).
order_op(>).
order_op(=<).
order_op(>=).

%!  text_comparisons(+Q0, -Q) is det.
%   Order comparisons read values from text ("1951", "May 24, 1925", "82 years"), which plain
%   arithmetic rejects with a type error: every query and rule body is rewritten once, where it
%   enters (kb_pending/3, kb_states/4, add_rule/3), to compare by value_key/2 instead.
text_comparisons(V, V) :- var(V), !.
text_comparisons((A, B), (A1, B1)) :- !, text_comparisons(A, A1), text_comparisons(B, B1).
text_comparisons((A ; B), (A1 ; B1)) :- !, text_comparisons(A, A1), text_comparisons(B, B1).
text_comparisons((A -> B), (A1 -> B1)) :- !, text_comparisons(A, A1), text_comparisons(B, B1).
text_comparisons(\+ A, \+ A1) :- !, text_comparisons(A, A1).
text_comparisons(aggregate_all(S, A, R), aggregate_all(S, A1, R)) :- !, text_comparisons(A, A1).
text_comparisons(distinct(A), distinct(A1)) :- !, text_comparisons(A, A1).
text_comparisons(G, picot_interp:compare_values(Op, A, B)) :- compound(G), G =.. [Op, A, B], order_op(Op), !.
text_comparisons(G, G).

%!  compare_values(+Op, +A, +B) is semidet.  Fails (never raises) when either side is unbound.
compare_values(Op, A, B) :-
    nonvar(A), nonvar(B),
    value_key(A, KA), value_key(B, KB),
    (   number(KA), number(KB)
    ->  G =.. [Op, KA, KB], call(G)
    ;   compare(Order, KA, KB), order_holds(Op, Order)
    ).

order_holds(<, <).
order_holds(>, >).
order_holds(=<, <).
order_holds(=<, =).
order_holds(>=, >).
order_holds(>=, =).

%!  value_key(+V, -K) is det.
%   Numbers stay; a text with a year becomes Y*10000 + Month*100 + Day ("May 24, 1925",
%   "24 May 1925", "1925-05-24" -> 19250524; missing parts are 0); otherwise its first number
%   ("82 years" -> 82, "45,000 seats" -> 45000); otherwise the lower-cased text (standard order).
value_key(V, V) :- number(V), !.
value_key(V, K) :-
    ( string(V) ; atom(V) ), !,
    string_lower(V, L0),
    string_codes(L0, C0), drop_group_commas(C0, C1), string_codes(L, C1),   % "45,000" -> "45000"
    split_string(L, " ,./-", " ,./-", Parts0),
    exclude(==(""), Parts0, Parts),
    (   C0 == C1, date_key(Parts, K0) -> K = K0          % "9,999" is a number, not a year
    ;   member(P, Parts), catch(number_string(K0, P), _, fail) -> K = K0
    ;   K = L
    ).
value_key(V, V).

drop_group_commas([D, 0',, A, B, C|T], [D|R]) :-
    maplist(digit_code, [D, A, B, C]), \+ ( T = [X|_], digit_code(X) ), !,
    drop_group_commas([A, B, C|T], R).
drop_group_commas([H|T], [H|R]) :- !, drop_group_commas(T, R).
drop_group_commas([], []).

digit_code(C) :- code_type(C, digit).

date_key(Parts, K) :-
    append(Before, [YS|After], Parts),
    string_length(YS, YL), YL >= 3, YL =< 4,
    catch(number_string(Y, YS), _, fail), integer(Y), !,
    append(Before, After, Rest),
    (   member(W, Rest), month(W, Mo) -> true ; Mo = 0 ),
    findall(N, ( member(S, Rest), string_length(S, SL), SL =< 2,
                 catch(number_string(N, S), _, fail), integer(N) ), Small),
    (   Mo =:= 0, Small = [M1|More], M1 >= 1, M1 =< 12 -> Month = M1, Days = More ; Month = Mo, Days = Small ),
    (   Days = [D|_], D >= 1, D =< 31 -> true ; D = 0 ),
    K is Y * 10000 + Month * 100 + D.

month(W, N) :-
    nth1(N, ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], P),
    sub_string(W, 0, 3, _, P), !.

%!  solve(+M, +Goal) is nondet.  The demand-driven interpreter (see the header).
solve(_, true) :- !.
solve(M, (A, B)) :- !, solve(M, A), solve(M, B).
solve(M, \+ G) :- !, \+ solve(M, G).
solve(M, (C -> T ; E)) :- !, ( solve(M, C) -> solve(M, T) ; solve(M, E) ).
solve(M, (A ; B)) :- !, ( solve(M, A) ; solve(M, B) ).
solve(M, (C -> T)) :- !, ( solve(M, C) -> solve(M, T) ).
solve(M, aggregate_all(Spec, G, R)) :- !, aggregate_all(Spec, solve(M, G), R).
solve(M, distinct(G)) :- !, distinct(G, solve(M, G)).
solve(_, picot_interp:compare_values(Op, A, B)) :- !, compare_values(Op, A, B).
solve(_, G) :- builtin_goal(G), !, call(G).
solve(M, G) :-
    functor(G, N, A), readable(M, N, A), !,
    (   is_acquired(M, G)
    ->  M:G
    ;   ( pending(M, P), P =@= G -> true ; assertz(pending(M, G)) ),
        fail
    ).
solve(M, G) :- clause(M:G, Body), solve(M, Body).

%!  kb_pending(+M, +Text, -JSON) is det.
%   Runs solve/2 over the query Text to exhaustion; JSON lists the pending readable goals
%   as [{"pred": name, "args": [string|number|null, ...]}, ...] in discovery order.
kb_pending(M, Text, JSON) :-
    retractall(pending(M, _)),
    term_string(Q0, Text),
    text_comparisons(Q0, Q),
    forall(solve(M, Q), true),
    findall(json([pred=NS, args=As]),
            ( pending(M, G), G =.. [N|Args], atom_string(N, NS), maplist(json_value, Args, As) ),
            L),
    with_output_to(string(JSON), json_write(current_output, L, [width(0)])).

json_value(V, @(null)) :- var(V), !.
json_value(V, V) :- string(V), !.
json_value(V, V) :- number(V), !.
json_value(V, S) :- term_string(V, S).

%!  kb_states(+M, +Text, +Limit, -JSON) is det.
%   The state: distinct variable assignments of the query Text over the facts and rules of M
%   (plain Prolog execution, no acquisition), at most Limit of them, as [{"Var": value}, ...].
kb_states(M, Text, Limit, JSON) :-
    term_string(Q0, Text, [variable_names(Vs)]),
    text_comparisons(Q0, Q),
    findall(Vs, limit(Limit, distinct(Vs, M:Q)), Sols),
    maplist(binding_json, Sols, States),
    with_output_to(string(JSON), json_write(current_output, States, [width(0)])).

binding_json(Vs, json(Pairs)) :-
    findall(Name=JV, ( member(Name=V, Vs), json_value(V, JV) ), Pairs).

%!  kb_facts(+M, -JSON) is det.  Every fact of the readable predicates, in assertion order.
kb_facts(M, JSON) :-
    findall(json([pred=NS, args=As]),
            ( readable(M, N, A), functor(G, N, A), M:G, G =.. [_|Args],
              atom_string(N, NS), maplist(json_value, Args, As) ),
            L),
    with_output_to(string(JSON), json_write(current_output, L, [width(0)])).
