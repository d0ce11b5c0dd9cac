# abc and typing: abstract classes instantiate as usual; TYPE_CHECKING is
# False; cast returns its value; generics, protocols, TypeVar and overload
# are harmless.
import abc
import typing
from abc import ABC, ABCMeta, abstractmethod
from typing import TYPE_CHECKING, Any, Callable, Generic, Optional, Protocol, TypeVar, Union, cast, overload

if TYPE_CHECKING:
    mode = "typing"
else:
    mode = "runtime"
reveal(mode)                           # => "runtime"
reveal(typing.TYPE_CHECKING)           # => False


class Shape(ABC):
    @abstractmethod
    def area(self):
        ...

    def describe(self):
        return "area=" + str(self.area())


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


reveal(Square(3).describe())           # => "area=9"
reveal(isinstance(Square(2), Shape))   # => True
reveal(Shape.area.__isabstractmethod__)  # => True


class Meta(metaclass=ABCMeta):
    @abc.abstractmethod
    def run(self):
        return "base"


class Runner(Meta):
    def run(self):
        return "runner:" + super().run()


reveal(Runner().run())                 # => "runner:base"
reveal(type(Meta) is ABCMeta)          # => True
reveal(Meta.register(int) is int)      # => True

T = TypeVar("T")
reveal(T.__name__)                     # => "T"


class Box(Generic[T]):
    def __init__(self, item: T):
        self.item = item

    def get(self) -> T:
        return self.item


reveal(Box[int](5).get())              # => 5
reveal(Box("s").item)                  # => "s"
reveal(cast(int, "not an int"))        # => "not an int"
reveal(cast("list[int]", [1])[0])      # => 1


class SupportsClose(Protocol):
    def close(self) -> None:
        ...


class Resource:
    def close(self) -> None:
        return None


reveal(Resource().close())             # => None

Alias = Optional[Union[int, str]]
Handler = Callable[[int], Any]


def use(x: Alias, h: Handler = None) -> Optional[int]:
    return x


reveal(use(4))                         # => 4


@overload
def conv(x: int) -> int: ...


@overload
def conv(x: str) -> str: ...


def conv(x):
    return x * 2


reveal(conv(21))                       # => 42
reveal(conv("ab"))                     # => "abab"

UserId = typing.NewType("UserId", int)
reveal(UserId(7))                      # => 7


class Movie(typing.TypedDict):
    title: str
    year: int


m = Movie(title="Alien", year=1979)
reveal(m["year"])                      # => 1979
