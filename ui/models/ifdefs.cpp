#include "models/ifdefs.h"

#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <QVector>

namespace tilescope::ui {

namespace {

/// A function-like macro's body as MacroTable holds it: never an integer.
const QString kFunctionLike = QStringLiteral("\x01(...)");

/// An integer literal as the preprocessor reads one (0x, 0b, octal, ' separators, u/l suffixes).
std::optional<qint64> integerLiteral(QString s) {
  s = s.trimmed();
  s.remove(QLatin1Char('\''));
  while (!s.isEmpty() && QStringLiteral("uUlL").contains(s.back())) s.chop(1);
  if (s.isEmpty() || !s.front().isDigit()) return std::nullopt;
  int base = 10;
  if (s.startsWith(QLatin1String("0x"), Qt::CaseInsensitive)) {
    base = 16;
    s = s.mid(2);
  } else if (s.startsWith(QLatin1String("0b"), Qt::CaseInsensitive)) {
    base = 2;
    s = s.mid(2);
  } else if (s.size() > 1 && s.front() == QLatin1Char('0')) {
    base = 8;
  }
  bool ok = false;
  const qint64 v = s.toLongLong(&ok, base);
  if (ok) return v;
  const quint64 u = s.toULongLong(&ok, base);  // past INT64_MAX: as the unsigned value wraps
  return ok ? std::optional<qint64>(static_cast<qint64>(u)) : std::nullopt;
}

int precedence(const QString& op) {
  static const QHash<QString, int> table{
      {QStringLiteral("||"), 1}, {QStringLiteral("&&"), 2}, {QStringLiteral("|"), 3},
      {QStringLiteral("^"), 4},  {QStringLiteral("&"), 5},  {QStringLiteral("=="), 6},
      {QStringLiteral("!="), 6}, {QStringLiteral("<"), 7},  {QStringLiteral(">"), 7},
      {QStringLiteral("<="), 7}, {QStringLiteral(">="), 7}, {QStringLiteral("<<"), 8},
      {QStringLiteral(">>"), 8}, {QStringLiteral("+"), 9},  {QStringLiteral("-"), 9},
      {QStringLiteral("*"), 10}, {QStringLiteral("/"), 10}, {QStringLiteral("%"), 10}};
  return table.value(op, 0);
}

/// Recursive descent over the tokens of one #if expression; `failed` once anything does not evaluate.
class Evaluator {
 public:
  Evaluator(const QString& text, const MacroTable& macros) : m_macros(macros) {
    static const QRegularExpression token(
        QStringLiteral(R"((\d[\w']*)|([A-Za-z_]\w*)|(&&|\|\||<<|>>|<=|>=|==|!=|[-+*/%<>!~&|^?:()])|(\S))"));
    for (auto it = token.globalMatch(text); it.hasNext();) m_tokens << it.next().captured(0);
  }

  std::optional<qint64> run() {
    const qint64 v = conditional();
    if (m_failed || m_pos != m_tokens.size()) return std::nullopt;
    return v;
  }

 private:
  QString peek() const { return m_pos < m_tokens.size() ? m_tokens[m_pos] : QString(); }
  QString take() { return m_pos < m_tokens.size() ? m_tokens[m_pos++] : (m_failed = true, QString()); }
  void expect(const char* t) {
    if (take() != QLatin1String(t)) m_failed = true;
  }

  qint64 conditional() {
    const qint64 c = binary(1);
    if (peek() != QLatin1String("?")) return c;
    take();
    const qint64 a = conditional();
    expect(":");
    const qint64 b = conditional();
    return c ? a : b;
  }

  qint64 binary(int minPrec) {
    qint64 lhs = unary();
    for (int p = precedence(peek()); p >= minPrec && !m_failed; p = precedence(peek())) {
      const QString op = take();
      // The side && and || do not need may fail to evaluate (defined(X) && X / 0 is fine).
      const bool decided = (op == QLatin1String("&&") && !lhs) || (op == QLatin1String("||") && lhs);
      const bool failedBefore = m_failed;
      const qint64 rhs = binary(p + 1);
      if (decided) {
        m_failed = failedBefore;
        lhs = op == QLatin1String("||") ? 1 : 0;
        continue;
      }
      lhs = apply(op, lhs, rhs);
    }
    return lhs;
  }

  qint64 apply(const QString& op, qint64 a, qint64 b) {
    if ((op == QLatin1String("/") || op == QLatin1String("%")) && b == 0) return (m_failed = true, 0);
    const char c = op.front().toLatin1();
    if (op.size() == 2 && op != QLatin1String("<=") && op != QLatin1String(">=")) {
      if (op == QLatin1String("||")) return a || b;
      if (op == QLatin1String("&&")) return a && b;
      if (op == QLatin1String("==")) return a == b;
      if (op == QLatin1String("!=")) return a != b;
      if (b < 0 || b > 63) return (m_failed = true, 0);
      return op == QLatin1String("<<") ? static_cast<qint64>(static_cast<quint64>(a) << b) : a >> b;
    }
    switch (c) {
      case '|':
        return a | b;
      case '^':
        return a ^ b;
      case '&':
        return a & b;
      case '<':
        return op.size() == 2 ? a <= b : a < b;
      case '>':
        return op.size() == 2 ? a >= b : a > b;
      case '+':
        return static_cast<qint64>(static_cast<quint64>(a) + static_cast<quint64>(b));
      case '-':
        return static_cast<qint64>(static_cast<quint64>(a) - static_cast<quint64>(b));
      case '*':
        return static_cast<qint64>(static_cast<quint64>(a) * static_cast<quint64>(b));
      case '/':
        return a / b;
      default:
        return a % b;
    }
  }

  qint64 unary() {
    const QString t = peek();
    if (t == QLatin1String("!")) return (take(), !unary());
    if (t == QLatin1String("~")) return (take(), ~unary());
    if (t == QLatin1String("-")) return (take(), static_cast<qint64>(0ULL - static_cast<quint64>(unary())));
    if (t == QLatin1String("+")) return (take(), unary());
    return primary();
  }

  qint64 primary() {
    const QString t = take();
    if (t == QLatin1String("(")) {
      const qint64 v = conditional();
      expect(")");
      return v;
    }
    if (t == QLatin1String("defined")) {
      const bool paren = peek() == QLatin1String("(");
      if (paren) take();
      const QString name = take();
      if (paren) expect(")");
      return m_macros.contains(name) ? 1 : 0;
    }
    if (!t.isEmpty() && t.front().isDigit()) {
      const auto v = integerLiteral(t);
      return v ? *v : (m_failed = true, 0);
    }
    if (!t.isEmpty() && (t.front().isLetter() || t.front() == QLatin1Char('_'))) return macroValue(t, 0);
    m_failed = true;
    return 0;
  }

  /// A name's value: its body as an integer (or another macro's), 0 when it is not defined.
  qint64 macroValue(const QString& name, int depth) {
    if (name == QLatin1String("true")) return 1;  // C++: true and false are not macros
    if (!m_macros.contains(name)) return 0;
    const QString body = m_macros.value(name).trimmed();
    if (const auto v = integerLiteral(body)) return *v;
    static const QRegularExpression ident(QStringLiteral(R"(^[A-Za-z_]\w*$)"));
    if (depth < 16 && ident.match(body).hasMatch()) return macroValue(body, depth + 1);
    if (body.size() > 2 && body.front() == QLatin1Char('(') && body.back() == QLatin1Char(')') && depth < 16)
      if (const auto v = Evaluator(body, m_macros).run()) return *v;
    m_failed = true;  // a bare define, a string, a function-like macro: the preprocessor would not say 0
    return 0;
  }

  const MacroTable& m_macros;
  QStringList m_tokens;
  qsizetype m_pos = 0;
  bool m_failed = false;
};

/// `line` without its comments; `inComment` carries a /* ... */ across lines.
QString stripComments(const QString& line, bool& inComment) {
  QString out;
  for (qsizetype i = 0; i < line.size(); ++i) {
    if (inComment) {
      if (line.mid(i, 2) == QLatin1String("*/")) {
        inComment = false;
        ++i;
        out += QLatin1Char(' ');
      }
      continue;
    }
    if (line.mid(i, 2) == QLatin1String("//")) break;
    if (line.mid(i, 2) == QLatin1String("/*")) {
      inComment = true;
      ++i;
      continue;
    }
    if (line[i] == QLatin1Char('"')) {  // a string: copied whole, a comment marker in it is text
      const qsizetype end = line.indexOf(QLatin1Char('"'), i + 1);
      out += line.mid(i, end < 0 ? -1 : end + 1 - i);
      if (end < 0) break;
      i = end;
      continue;
    }
    out += line[i];
  }
  return out;
}

/// One #if group on the stack: whether its surroundings are kept, its branch now, whether one was taken.
struct Group {
  bool parentActive = true;
  bool active = true;
  bool taken = false;
  bool unknown = false;  ///< a condition did not evaluate: every later branch is shown
};

class Scanner {
 public:
  explicit Scanner(MacroTable macros) : m_macros(std::move(macros)) {}

  /// Whether the preprocessor leaves out the logical line `code` (comments stripped).
  bool visit(const QString& code) {
    static const QRegularExpression directive(QStringLiteral(R"(^\s*#\s*(\w+)\s*(.*)$)"));
    const auto m = directive.match(code);
    if (!m.hasMatch()) return !active();
    const QString kw = m.captured(1), rest = m.captured(2).trimmed();
    if (kw == QLatin1String("if") || kw == QLatin1String("ifdef") || kw == QLatin1String("ifndef")) {
      const bool outer = active();
      Group g{outer, false, true, false};
      if (outer) enter(g, condition(kw, rest));
      m_stack.push_back(g);
      return !outer;
    }
    if (m_stack.isEmpty()) {
      if (active()) define(kw, rest);
      return false;  // an #else or #endif without its #if: nothing to grey
    }
    Group& g = m_stack.back();
    if (kw == QLatin1String("endif")) {
      const bool outer = g.parentActive;
      m_stack.pop_back();
      return !outer;
    }
    if (kw == QLatin1String("else") || kw.startsWith(QLatin1String("elif"))) {
      if (!g.parentActive) return true;
      if (g.unknown)
        g.active = true;
      else if (g.taken)
        g.active = false;
      else if (kw == QLatin1String("else"))
        g.active = g.taken = true;
      else
        enter(g, condition(kw == QLatin1String("elif") ? QStringLiteral("if") : kw.mid(2), rest));
      return false;
    }
    if (active()) define(kw, rest);
    return !active();
  }

 private:
  bool active() const { return m_stack.isEmpty() || m_stack.back().active; }

  static void enter(Group& g, std::optional<qint64> cond) {
    g.unknown = !cond.has_value();
    g.active = !cond || *cond != 0;
    g.taken = cond && *cond != 0;
  }

  std::optional<qint64> condition(const QString& kw, const QString& rest) const {
    if (kw == QLatin1String("if")) return evalCondition(rest, m_macros);
    const QString name = rest.section(QRegularExpression(QStringLiteral(R"([^\w])")), 0, 0);
    if (name.isEmpty()) return std::nullopt;
    return (kw == QLatin1String("ifdef")) == m_macros.contains(name) ? 1 : 0;
  }

  void define(const QString& kw, const QString& rest) {
    static const QRegularExpression def(QStringLiteral(R"(^([A-Za-z_]\w*)(\(?)\s*(.*)$)"));
    const auto m = def.match(rest);
    if (!m.hasMatch()) return;
    if (kw == QLatin1String("define"))
      m_macros.insert(m.captured(1), m.captured(2).isEmpty() ? m.captured(3).trimmed() : kFunctionLike);
    else if (kw == QLatin1String("undef"))
      m_macros.remove(m.captured(1));
  }

  MacroTable m_macros;
  QVector<Group> m_stack;
};

}  // namespace

std::optional<qint64> evalCondition(const QString& expression, const MacroTable& macros) {
  if (expression.trimmed().isEmpty()) return std::nullopt;
  return Evaluator(expression, macros).run();
}

QSet<int> inactiveLines(const QString& source, MacroTable macros) {
  QSet<int> out;
  const QStringList lines = source.split(QLatin1Char('\n'));
  Scanner scanner(std::move(macros));
  bool inComment = false;
  for (int i = 0; i < lines.size();) {
    // A directive continued with a backslash is one logical line: its lines share its fate.
    const int first = i;
    QString logical;
    do {
      QString part = lines[i];
      if (part.endsWith(QLatin1Char('\r'))) part.chop(1);
      const bool more = part.endsWith(QLatin1Char('\\'));
      if (more) part.chop(1);
      logical += part;
      ++i;
      if (!more) break;
    } while (i < lines.size());
    if (scanner.visit(stripComments(logical, inComment)))
      for (int l = first; l < i; ++l) out.insert(l + 1);
  }
  return out;
}

}  // namespace tilescope::ui
