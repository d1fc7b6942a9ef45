% Rules of the generated universe (facts.pl without facts).
male_first_cousin_once_removed(X, Y) :- cousin(X, A), son(A, Y), X\=Y.
mother(X, Y) :- parent(X, Y), female(Y).
father(X, Y) :- parent(X, Y), male(Y).
female_first_cousin_once_removed(X, Y) :- cousin(X, A), daughter(A, Y), X\=Y.
male_second_cousin(X, Y) :- parent(X, A), parent(Y, B), cousin(A, B), male(Y), X\=Y.
sister(X, Y) :- sibling(X, Y), female(Y).
nonbinary(X) :- gender(X, "nonbinary").
brother(X, Y) :- sibling(X, Y), male(Y).
female_second_cousin(X, Y) :- parent(X, A), parent(Y, B), cousin(A, B), female(Y), X\=Y.
daughter_in_law(X, Y) :- child(X, A), wife(A, Y).
daughter(X, Y) :- child(X, Y), female(Y).
wife(X, Y) :- married(X, Y), female(Y).
son_in_law(X, Y) :- child(X, A), husband(A, Y).
male(X) :- gender(X, "male").
father_in_law(X, Y) :- married(X, A), father(A, Y).
child(X, Y) :- parent(Y, X).
son(X, Y) :- child(X, Y), male(Y).
mother_in_law(X, Y) :- married(X, A), mother(A, Y).
female(X) :- gender(X, "female").
aunt(X, Y) :- parent(X, A), sister(A, Y).
second_uncle(X, Y) :- great_grandparent(X, A), brother(A, Y).
second_aunt(X, Y) :- great_grandparent(X, A), sister(A, Y).
great_grandson(X, Y) :- great_grandchild(X, Y), male(Y).
male_cousin(X, Y) :- cousin(X, Y), male(Y).
married(X, Y) :- parent(Child, X), parent(Child, Y), X\=Y.
female_cousin(X, Y) :- cousin(X, Y), female(Y).
cousin(X, Y) :- parent(X, A), parent(Y, B), sibling(A, B), X\=Y.
sibling(X, Y) :- parent(X, A), parent(Y, A), X\=Y.
uncle(X, Y) :- parent(X, A), brother(A, Y).
great_grandparent(X, Y) :- grandparent(X, Z), parent(Z, Y).
grandson(X, Y) :- grandchild(X, Y), male(Y).
granddaughter(X, Y) :- grandchild(X, Y), female(Y).
grandchild(X, Y) :- grandparent(Y, X).
great_granddaughter(X, Y) :- great_grandchild(X, Y), female(Y).
great_grandchild(X, Y) :- great_grandparent(Y, X).
great_grandfather(X, Y) :- great_grandparent(X, Y), male(Y).
great_grandmother(X, Y) :- great_grandparent(X, Y), female(Y).
grandparent(X, Y) :- parent(X, Z), parent(Z, Y).
nephew(X, Y) :- sibling(X, A), son(A, Y).
niece(X, Y) :- sibling(X, A), daughter(A, Y).
husband(X, Y) :- married(X, Y), male(Y).
great_uncle(X, Y) :- grandparent(X, A), brother(A, Y).
sister_in_law(X, Y) :- married(X, A), sister(A, Y).
great_aunt(X, Y) :- grandparent(X, A), sister(A, Y).
brother_in_law(X, Y) :- married(X, A), brother(A, Y).
grandfather(X, Y) :- grandparent(X, Y), male(Y).
friend(X, Y) :- friend_(X, Y).
friend(X, Y) :- friend_(Y, X).
grandmother(X, Y) :- grandparent(X, Y), female(Y).
